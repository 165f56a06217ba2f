/** The seam adapters and the CLI use for the flag model (schema and typed values); each concern of flags has its own seam in a sub-folder. */
export { FLAG_KEY_PATTERN, MAX_ID_LENGTH, evaluationContextSchema, ruleSchema } from "./schema.js";
export type {
  CreateFlagInput,
  EvaluationContext,
  EvaluationResult,
  Flag,
  Prerequisite,
  Rule,
  UpdateFlagInput,
  Variant,
} from "./schema.js";
export { flagHistoryJson, flagJson, flagSummaryJson } from "./flag-json.js";
export { jsonTypeOf } from "./values.js";
export type { JsonType } from "./values.js";
