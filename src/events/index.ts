/** The seam adapters and the CLI use for event tracking and queries. */
export type { EventBufferOptions, UnstoredReason } from "./event-buffer-options.js";
export { TRACK_OPERATION } from "./event-tracker.js";
export { isHeavyEventQuery } from "./heavy-event-query.js";
export { batchBodySchema } from "./schema.js";
export type { AcceptedEvent, TrackEventInput } from "./schema.js";
