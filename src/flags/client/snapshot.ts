import { z } from "zod";
import { parseInput } from "../../validation.js";
import type { SnapshotFlag } from "../evaluation/compile.js";
import { snapshotFlagFromJson } from "../flag-json.js";

/**
 * A flag as a snapshot carries it. Only the key is checked here: the rest is checked when the
 * flag is compiled, so one broken flag answers its default with reason "error" instead of
 * hiding every other flag of the snapshot.
 */
const snapshotFlagSchema = z.looseObject({
  key: z.string({ error: "must be a string (every flag of a snapshot needs a string key)" }),
});

/**
 * The body of GET /v1/flags/_snapshot (adapters/http/routes/flag-snapshot.ts builds it; the
 * remote client parses it): `version` is the content hash the ETag carries.
 */
export const flagSnapshotSchema = z.object({
  data: z.object({
    version: z.string().optional(),
    flags: z.array(snapshotFlagSchema, {
      error: 'must be a list of flags: a snapshot is {"data": {"flags": [...]}}, {"flags": [...]} or a list of flags',
    }),
  }),
});

export type FlagSnapshotBody = z.input<typeof flagSnapshotSchema>;

/**
 * Reads a snapshot in any accepted form (the route's body, or as a bootstrap also `{"flags": [...]}`
 * or the bare list); throws a `validation_error` naming what is wrong. Times come back in epoch
 * milliseconds, as the in-process flags have them.
 */
export function parseSnapshot(body: unknown): SnapshotFlag[] {
  const data = (body as { data?: unknown } | null)?.data ?? body;
  const envelope = { data: Array.isArray(data) ? { flags: data } : data };
  return (parseInput(flagSnapshotSchema, envelope).data.flags as SnapshotFlag[]).map(snapshotFlagFromJson);
}
