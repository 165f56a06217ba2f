/** The seam adapters and the CLI use for the in-process flag client: compiled snapshots, isEnabled/getValue, exposures. */
export { EXPOSURE_EVENT, ExposureRecorder } from "./exposures.js";
export type { EventSink } from "./exposures.js";
export type { FlagClientEvent, FlagContext, FlagEvaluation } from "./flag-client-types.js";
export { FlagClient } from "./flag-client.js";
export { parseSnapshot } from "./snapshot.js";
export type { FlagSnapshotBody } from "./snapshot.js";
