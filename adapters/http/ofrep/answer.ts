import type { EvaluationResult } from "../../../src/internal.js";

/**
 * flagpost reasons → OFREP reasons (docs/ofrep.md has the table). A user who got a variant by
 * weight is a SPLIT; a rule that let the user in without a variant is TARGETING_MATCH; a flag on
 * for everyone without variants is STATIC; off is DISABLED; nobody matched is DEFAULT.
 */
export function ofrepReason(result: EvaluationResult): string {
  switch (result.reason) {
    case "disabled":
      return "DISABLED";
    case "no_rules":
      return result.variant === undefined ? "STATIC" : "SPLIT";
    case "rule_match":
      return result.variant === undefined ? "TARGETING_MATCH" : "SPLIT";
    case "prerequisite_failed":
    case "no_rule_match":
      return "DEFAULT";
    default:
      return "ERROR";
  }
}

/**
 * The OFREP success body (openapi.yaml `serverEvaluationSuccess`) for one flag. A boolean flag
 * serves `enabled`; a flag whose evaluation carries `value` serves that value, and when such a
 * flag is off for the user no `value` is sent, so the SDK answers the caller's default. `valued`
 * says the flag has values (its variants carry `value`), known to the caller from the flag.
 */
export function ofrepAnswer(key: string, result: EvaluationResult, valued = false): Record<string, unknown> {
  const answer: Record<string, unknown> = { key, reason: ofrepReason(result) };
  if (result.variant !== undefined) answer.variant = result.variant;
  const carried = result as EvaluationResult & { value?: unknown };
  if ("value" in carried && carried.value !== undefined) answer.value = carried.value;
  else if (!valued) answer.value = result.enabled;
  return answer;
}
