import {
  type EvaluationContext,
  ErrorCode,
  type ResolutionDetails,
  StandardResolutionReasons,
  TypeMismatchError,
} from "@openfeature/server-sdk";
import type { FlagClient, FlagEvaluation } from "../../src/flags/client/index.js";
import { type JsonType, jsonTypeOf } from "../../src/flags/index.js";

/**
 * How the provider resolves a string, number or object flag from its variants' values (docs/flags.md
 * "Values"). The JSON types each resolver accepts: an OpenFeature object is any JSON structure, so
 * the object resolver takes arrays too; a flag of another type raises TYPE_MISMATCH, as does a flag
 * without values (a string evaluation of one with variants reads the variant key instead, as before).
 */
const ACCEPTED_TYPES: Record<"string" | "number" | "object", readonly JsonType[]> = {
  string: ["string"],
  number: ["number"],
  object: ["object", "array"],
};

/** The boolean resolver's mapping of a result that serves no value: its reason, error code and message. */
type Details = (result: FlagEvaluation) => Omit<ResolutionDetails<unknown>, "value">;

interface ContextIn {
  (context: EvaluationContext): { userId?: string; attributes: Record<string, unknown> };
}

/**
 * A served variant's reason: TARGETING_MATCH when the matching rule names the variant it serves,
 * SPLIT when the user's weighted bucket chose it.
 */
export function servedReason(client: FlagClient, flagKey: string, result: FlagEvaluation): string {
  if (result.reason !== "rule_match") return StandardResolutionReasons.SPLIT;
  const rule = client.getFlag(flagKey)?.rules[result.ruleIndex!] as { variant?: string } | undefined;
  return rule?.variant === undefined ? StandardResolutionReasons.SPLIT : StandardResolutionReasons.TARGETING_MATCH;
}

/**
 * `kind`'s resolution: the user's variant's value (or, for a string flag with variants but no
 * values, the variant key); the default with the boolean resolver's reason when the flag is off
 * for this context; the default with TARGETING_KEY_MISSING when it is on but could only pick a
 * variant by targetingKey and the context has none.
 */
export function resolveValue<T>(
  client: FlagClient,
  kind: keyof typeof ACCEPTED_TYPES,
  flagKey: string,
  defaultValue: T,
  context: EvaluationContext,
  toContext: ContextIn,
  details: Details,
): ResolutionDetails<T> {
  const flag = client.getFlag(flagKey);
  const variants = Array.isArray(flag?.variants) ? flag.variants : [];
  const type = jsonTypeOf(variants[0]?.value);
  const variantKeys = kind === "string" && type === undefined && variants.length > 0;
  if (flag !== undefined && !variantKeys && (type === undefined || !ACCEPTED_TYPES[kind].includes(type))) {
    throw new TypeMismatchError(
      type === undefined
        ? `flag "${flagKey}" has no values; read it as a boolean`
        : `flag "${flagKey}" serves ${type} values and cannot be read as ${kind === "object" ? "an" : "a"} ${kind}`,
    );
  }
  const { userId, attributes } = toContext(context);
  const result = client.evaluate(flagKey, { userId, attributes });
  if (result.variant !== undefined) {
    const value = variantKeys ? result.variant : result.value;
    return { value: value as T, variant: result.variant, reason: servedReason(client, flagKey, result) };
  }
  if (flag !== undefined && result.enabled && userId === undefined) {
    return {
      value: defaultValue,
      reason: StandardResolutionReasons.ERROR,
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
      errorMessage: `flag "${flagKey}" assigns variants by targetingKey, and the context has none`,
    };
  }
  return { ...details(result), value: defaultValue };
}
