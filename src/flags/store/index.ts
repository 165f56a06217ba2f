/** The seam adapters and the CLI use for the flag store: writes, history, prerequisites, the change stream. */
export type { FlagStreamBatch, FlagStreamStart, FlagStreamSubscription } from "./flag-stream.js";
export { flagWrites } from "./flag-writes.js";
