import type { EvaluationResult } from "../../../src/flags/index.js";

/** What the answer needs of the flag: its rules (the matched rule's kind) and whether it has values. */
interface FlagShape {
  rules?: readonly { type?: string; variant?: string }[];
  variants?: readonly object[];
}

/**
 * flagpost reasons → OFREP reasons (docs/ofrep.md has the table), as the in-process OpenFeature
 * provider gives them, so both clients agree. A variant the matched rule names, or a rule that let
 * the user in by who they are, is TARGETING_MATCH; a variant chosen by weight, or a percentage
 * rule, is SPLIT; a flag on for everyone without variants is STATIC; off is DISABLED; nobody
 * matched is DEFAULT. A reason this table does not know yet is UNKNOWN, the spec's word for it
 * (`ERROR` is not a success reason: an error is an `errorCode` answer).
 */
export function ofrepReason(result: EvaluationResult, flag?: FlagShape): string {
  switch (result.reason) {
    case "disabled":
      return "DISABLED";
    case "no_rules":
      return result.variant === undefined ? "STATIC" : "SPLIT";
    case "rule_match": {
      const rule = result.ruleIndex === undefined ? undefined : flag?.rules?.[result.ruleIndex];
      if (result.variant !== undefined) return rule?.variant === undefined ? "SPLIT" : "TARGETING_MATCH";
      return rule?.type === "percentage" ? "SPLIT" : "TARGETING_MATCH";
    }
    case "prerequisite_failed":
    case "no_rule_match":
      return "DEFAULT";
    default:
      return "UNKNOWN";
  }
}

/**
 * The OFREP body for one flag: `serverEvaluationSuccess` (openapi.yaml), or an `evaluationFailure`
 * (it has `errorCode`). A boolean flag serves `enabled`; a flag whose evaluation carries `value`
 * serves that value, and when such a flag is off for the user no `value` is sent, so the SDK
 * answers the caller's default. A valued flag on for a context without targetingKey has no variant
 * to serve (the weighted choice hashes the targetingKey): TARGETING_KEY_MISSING, the error the
 * in-process OpenFeature provider gives for it.
 */
export function ofrepAnswer(key: string, result: EvaluationResult, flag?: FlagShape): Record<string, unknown> {
  const valued = (flag?.variants ?? []).some((variant) => "value" in variant);
  if (valued && result.enabled && result.variant === undefined)
    return {
      key,
      errorCode: "TARGETING_KEY_MISSING",
      errorDetails: `flag "${key}" assigns its values by targetingKey, and the context has none`,
    };
  const answer: Record<string, unknown> = { key, reason: ofrepReason(result, flag) };
  if (result.variant !== undefined) answer.variant = result.variant;
  const carried = result as EvaluationResult & { value?: unknown };
  if ("value" in carried && carried.value !== undefined) answer.value = carried.value;
  else if (!valued) answer.value = result.enabled;
  return answer;
}
