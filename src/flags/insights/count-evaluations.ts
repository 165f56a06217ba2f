import type { AfterEvaluation } from "../client/after-evaluation.js";
import { isOn } from "../client/decision.js";
import { countEvaluation } from "../evaluation/prerequisite-plan.js";

/**
 * The insights counter as the first entry of the flag client's after-evaluation list: it bumps
 * the evaluated flag's integer for this result, which the InsightsRecorder takes and stores.
 * Evaluations on a client's behalf count too: the flag was evaluated all the same.
 */
export const countForInsights: AfterEvaluation = (flag, _userId, _attributes, outcome, variantIndex) => {
  countEvaluation(flag, isOn(outcome), variantIndex);
};
