/** The seam adapters and the CLI use for experiment results and their statistics. */
export type { ExperimentResults, ExperimentResultsInput } from "./schema.js";
export { compare, moments, sampleRatioMismatch } from "./stats.js";
