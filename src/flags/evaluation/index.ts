/** The seam adapters and the CLI use for flag evaluation: evaluate(), bucketing, operators, variants, contexts. */
export { bucketOf, murmur3Utf8 } from "./bucket.js";
export type { SnapshotFlag } from "./compile.js";
export { parseEvaluationContext } from "./context.js";
export { evaluate } from "./evaluate.js";
export { ATTRIBUTE_OPERATORS, OPERATORS } from "./operators.js";
export { variantBucketOf, variantOf } from "./variants.js";
