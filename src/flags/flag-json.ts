import { isoFromMs, parseIsoInstant } from "../time.js";
import type { SnapshotFlag } from "./evaluation/compile.js";
import type { FlagHistoryView } from "./store/flag-history.js";
import type { Flag, FlagJson, FlagSummary } from "./schema.js";

/**
 * A flag's times cross the storage port and the in-process API as epoch milliseconds, and the
 * wire (HTTP bodies, the snapshot and stream, webhook payloads) as ISO 8601: these convert at
 * that edge, keeping every other field and the order of the fields.
 */

export function flagJson(flag: Flag): FlagJson {
  return { ...flag, createdAt: isoFromMs(flag.createdAt), updatedAt: isoFromMs(flag.updatedAt) };
}

/** An entry of `GET /v1/flags` in its wire form. */
export function flagSummaryJson(summary: FlagSummary): Omit<FlagSummary, "createdAt"> & { createdAt: string } {
  return { ...summary, createdAt: isoFromMs(summary.createdAt) };
}

/** An entry of `GET /v1/flags/{key}/history` in its wire form. */
export function flagHistoryJson(entry: FlagHistoryView): Omit<FlagHistoryView, "at"> & { at: string } {
  return { ...entry, at: isoFromMs(entry.at) };
}

/**
 * A flag read from a snapshot or stream body (the remote client, a bootstrap file), with its
 * times in epoch milliseconds as the in-process client holds them. A time that is not ISO 8601 is
 * left out: evaluation never reads it, so one odd field must not cost the flag.
 */
export function snapshotFlagFromJson(flag: SnapshotFlag): SnapshotFlag {
  const read = { ...flag };
  for (const field of ["createdAt", "updatedAt"] as const) {
    const value: unknown = flag[field];
    if (value === undefined || typeof value === "number") continue;
    const ms = typeof value === "string" ? parseIsoInstant(value) : undefined;
    if (ms === undefined) delete read[field];
    else read[field] = ms;
  }
  return read;
}
