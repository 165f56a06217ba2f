import { bucketOf, percentageThreshold } from "./bucket.js";
import { operatorNamed } from "./operators.js";
import type { AttributeRule, EvaluationContext, EvaluationResult, Flag, Rule, Scalar } from "../schema.js";
import { variantOf } from "./variants.js";

/** What evaluate() needs of a flag. */
export type EvaluableFlag = Pick<Flag, "key" | "enabled" | "rules"> & {
  variants?: Flag["variants"];
  prerequisites?: Flag["prerequisites"];
};

/** Finds a prerequisite flag by key; undefined when there is none (the prerequisite is then unmet). */
export type FlagLookup = (key: string) => EvaluableFlag | undefined;

/**
 * The reference evaluator: pure, plain (each call compiles what it needs: no caches), and the
 * definition every other evaluator (the compiled in-process client, the HTTP route, other SDKs)
 * must agree with. See docs/flags.md for the decisions docs/api.md leaves open.
 *
 * Prerequisites are checked after `disabled` and before the rules: each is evaluated for the same
 * context (its own prerequisites included) through `lookup`, and must answer `enabled` as listed.
 * A prerequisite that is missing, or that leads back to a flag being evaluated, is unmet.
 */
export function evaluate(flag: EvaluableFlag, context: EvaluationContext = {}, lookup?: FlagLookup): EvaluationResult {
  return evaluateOn(flag, context, lookup, []);
}

function evaluateOn(
  flag: EvaluableFlag,
  context: EvaluationContext,
  lookup: FlagLookup | undefined,
  path: string[],
): EvaluationResult {
  if (!flag.enabled) return { enabled: false, reason: "disabled" };
  if (!prerequisitesMet(flag, context, lookup, path)) return { enabled: false, reason: "prerequisite_failed" };
  if (flag.rules.length === 0) return withVariant(flag, context, undefined, { enabled: true, reason: "no_rules" });
  for (let i = 0; i < flag.rules.length; i++) {
    const rule = flag.rules[i]!;
    if (ruleMatches(flag.key, rule, context))
      return withVariant(flag, context, rule.variant, { enabled: true, reason: "rule_match", ruleIndex: i });
  }
  return { enabled: false, reason: "no_rule_match" };
}

function prerequisitesMet(
  flag: EvaluableFlag,
  context: EvaluationContext,
  lookup: FlagLookup | undefined,
  path: string[],
): boolean {
  const prerequisites = flag.prerequisites ?? [];
  if (prerequisites.length === 0) return true;
  path.push(flag.key);
  try {
    for (const { flagKey, enabled } of prerequisites) {
      const prerequisite = path.includes(flagKey) ? undefined : lookup?.(flagKey);
      if (prerequisite === undefined) return false;
      if (evaluateOn(prerequisite, context, lookup, path).enabled !== enabled) return false;
    }
    return true;
  } finally {
    path.pop();
  }
}

/**
 * An "on" answer gains a variant: the one the matching rule serves by name, else the user's
 * weighted one when the flag has variants and the context a userId. With the variant comes its
 * value, when the flag's variants carry values (docs/flags.md "Values").
 */
function withVariant(
  flag: { key: string; variants?: Flag["variants"] },
  context: EvaluationContext,
  served: string | undefined,
  result: EvaluationResult,
): EvaluationResult {
  const named = served === undefined ? undefined : flag.variants?.find((variant) => variant.key === served);
  const variant =
    named?.key ?? (context.userId === undefined ? undefined : variantOf(flag.key, flag.variants, context.userId));
  if (variant === undefined) return result;
  const value = (named ?? flag.variants?.find((v) => v.key === variant))?.value;
  return value === undefined ? { ...result, variant } : { ...result, variant, value };
}

export function ruleMatches(flagKey: string, rule: Rule, context: EvaluationContext): boolean {
  switch (rule.type) {
    case "users":
      return context.userId !== undefined && rule.userIds.includes(context.userId);
    case "percentage":
      return context.userId !== undefined && bucketOf(flagKey, context.userId) < percentageThreshold(rule.percentage);
    case "attribute":
      return attributeMatches(rule, readAttribute(context, rule.attribute));
  }
}

/**
 * The attribute's value, or undefined when it is missing. Only strings, finite numbers and
 * booleans are values: null, arrays and objects count as missing, so they never match.
 */
export function readAttribute(context: EvaluationContext, name: string): Scalar | undefined {
  const attributes = context.attributes;
  let value: unknown;
  if (attributes !== undefined && Object.hasOwn(attributes, name)) value = attributes[name];
  else if (name === "userId") value = context.userId;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return undefined;
}

/** Whether the attribute's value satisfies the rule, by the operator table (operators.ts). */
export function attributeMatches(rule: Pick<AttributeRule, "operator" | "value">, actual: Scalar | undefined): boolean {
  if (actual === undefined) return false; // a missing attribute never matches, whatever the operator
  const operator = operatorNamed(rule.operator);
  if (operator === undefined) return false;
  const { match, arg } = operator.compile(rule.value);
  return match(actual, arg as never);
}
