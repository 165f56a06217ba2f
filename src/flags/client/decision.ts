import { OUTCOME_DISABLED, OUTCOME_NO_RULES, OUTCOME_PREREQUISITE_FAILED } from "../evaluation/compile.js";
import type { ValueEvaluation } from "./flag-client-types.js";
import type { EvaluationReason } from "../schema.js";

/** How the flag client packs one evaluation's decision into a number, and reads it back. */

export const NOT_READY_MESSAGE = "flag client is not ready: the first flag snapshot has not loaded";

/**
 * A decision packs the outcome (a rule index ≥ 0 or an OUTCOME_* constant) and the variant index
 * (-1 for none) as outcome × SLOTS + variant + 1, so the hot path returns it without allocating.
 */
export const SLOTS = 64;
/** No flag in the snapshot for the key. */
export const NOT_FOUND = -1_000_000;

export const outcomeOfDecision = (decision: number) => Math.floor(decision / SLOTS);
export const variantIndexOf = (decision: number) => decision - outcomeOfDecision(decision) * SLOTS - 1;
export const isOn = (outcome: number) => outcome >= 0 || outcome === OUTCOME_NO_RULES;

export function reasonOf(outcome: number): EvaluationReason {
  if (outcome >= 0) return "rule_match";
  if (outcome === OUTCOME_DISABLED) return "disabled";
  if (outcome === OUTCOME_NO_RULES) return "no_rules";
  if (outcome === OUTCOME_PREREQUISITE_FAILED) return "prerequisite_failed";
  return "no_rule_match";
}

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** getValueDetail's answer when the flag's values are not of the default's JSON type. */
export function typeMismatch<T>(key: string, actual: unknown, expected: string, value: T): ValueEvaluation<T> {
  return {
    value,
    reason: "type_mismatch",
    errorMessage: `flag "${key}" serves ${actual} values; the default is ${expected}`,
  };
}
