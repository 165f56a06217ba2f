/**
 * An instant as the storage port carries it: milliseconds since the Unix epoch (UTC), as
 * `Date.now()` gives it. ISO 8601 text exists only at the wire (HTTP bodies, webhook payloads).
 */
export type EpochMs = number;
