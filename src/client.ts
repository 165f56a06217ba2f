/**
 * `flagpost/client`: the remote flag client on its own, for apps that reach flagpost over HTTP
 * (another service, a worker, an edge function). It loads no storage code and no Node-only module
 * (a bootstrap file path is the one exception, read with node:fs only when given).
 */
export { createRemoteFlagClient, type RemoteFlagClientOptions } from "./flags/remote/remote-flag-client.js";
export { parseSnapshot } from "./flags/client/snapshot.js";
export {
  FlagClient,
  type FlagClientEvent,
  type FlagClientListener,
  type FlagClientStatus,
  type FlagContext,
  type FlagEvaluation,
  type FlagEvaluationReason,
} from "./flags/client/flag-client.js";
export type { SnapshotFlag } from "./flags/evaluation/compile.js";
export { EXPOSURE_EVENT, type EventSink, type ExposureEvent, type ExposureOptions } from "./flags/client/exposures.js";
export { FlagpostError, type ErrorCode } from "./errors.js";
export type { Logger } from "./ports/logger.js";
