import { z } from "zod";
import { limitField } from "../../pagination.js";
import type { Clock } from "../../ports/clock.js";
import { FlagpostError, notFound } from "../../errors.js";
import { uuidv7 } from "../../ids.js";
import type { EpochMs, FlagScheduleRecord, Storage } from "../../ports/storage/index.js";
import { isoFromMs, parseIsoInstant } from "../../time.js";
import { parseInput } from "../../validation.js";
import { IN_PROCESS_ACTOR } from "../store/flag-history.js";
import type { FlagWriteOptions } from "../store/flag-store.js";
import { FLAG_KEY_PATTERN, updateFlagSchema } from "../schema.js";

/**
 * Scheduled flag changes (docs/flags.md "Scheduled changes"): what `fp.flags.schedules` and the
 * `/v1/flags/{key}/schedules` routes do. The ScheduleWorker (schedule-worker.ts) applies them.
 */

/**
 * What a schedule may change: a PATCH body without `key`, `id` and `description`, so every
 * field a PATCH learns (prerequisites, …) can be scheduled too, with the same rules.
 */
export const scheduleChangesSchema = updateFlagSchema
  .omit({ key: true, id: true, description: true })
  .refine((changes) => Object.keys(changes).length > 0, {
    error: "must change at least one field",
    // Only for an object otherwise valid: an unknown field is the one problem worth naming then.
    when: (payload) => payload.issues.length === 0,
  });

export const createScheduleSchema = z.strictObject({
  at: z.string().refine((text) => parseIsoInstant(text, { allowDateOnly: false }) !== undefined, {
    error: 'must be an ISO 8601 date-time with a time zone, such as "2026-05-01T09:00:00Z"',
  }),
  changes: scheduleChangesSchema,
});
export type CreateScheduleInput = z.input<typeof createScheduleSchema>;

const STATUSES = ["pending", "applied", "failed"] as const;

export const listSchedulesQuerySchema = z.strictObject({
  status: z.enum(STATUSES).optional(),
  limit: limitField(1000, 100),
  cursor: z.string().max(200).optional(),
});
export type ListSchedulesOptions = z.input<typeof listSchedulesQuerySchema>;

/** A time this far in the past is refused: a clock a little behind the server's is not. */
export const MAX_PAST_MS = 60_000;
/** Nor further ahead than this (ten years): most likely a mistyped year. */
const MAX_FUTURE_MS = 10 * 366 * 86_400_000;

/** A schedule as the API shows it: its times as ISO 8601 text; the lease and attempt bookkeeping stays inside. */
export type FlagScheduleView = Omit<
  FlagScheduleRecord,
  "at" | "createdAt" | "finishedAt" | "attempts" | "nextAttemptAt" | "leaseOwner" | "leaseUntil"
> & { at: string; createdAt: string; finishedAt?: string };

export interface FlagSchedulePage {
  data: FlagScheduleView[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function scheduleView(record: FlagScheduleRecord): FlagScheduleView {
  const {
    attempts: _a,
    nextAttemptAt: _n,
    leaseOwner: _o,
    leaseUntil: _u,
    at,
    createdAt,
    finishedAt,
    ...rest
  } = record;
  const view: FlagScheduleView = { ...rest, at: isoFromMs(at), createdAt: isoFromMs(createdAt) };
  if (finishedAt !== undefined) view.finishedAt = isoFromMs(finishedAt);
  return view;
}

/** The cursor is the last schedule's [at as ISO text, id], base64url-encoded JSON (opaque to clients). */
function encodeCursor(last: { at: EpochMs; id: string }): string {
  return Buffer.from(JSON.stringify([isoFromMs(last.at), last.id]), "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { at: EpochMs; id: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const [at, id] = Array.isArray(decoded) ? (decoded as unknown[]) : [];
  const ms = typeof at === "string" ? Date.parse(at) : NaN;
  // Encoding it again must give the same text: only a cursor this API wrote passes.
  const valid =
    typeof id === "string" && UUID.test(id) && Number.isFinite(ms) && encodeCursor({ at: ms, id }) === cursor;
  if (!valid)
    throw new FlagpostError("validation_error", '"cursor" is not a cursor this API returned', {
      details: [{ path: "cursor", message: "is not a cursor this API returned" }],
    });
  return { at: ms, id };
}

export class FlagSchedules {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #listeners = new Set<(schedule: FlagScheduleView) => void>();

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  /** Schedules `changes` for the flag at `at`. The flag must exist; `at` may be up to a minute past (applied at once). */
  async create(key: string, input: CreateScheduleInput, options: FlagWriteOptions = {}): Promise<FlagScheduleView> {
    const parsed = parseInput(createScheduleSchema, input);
    const atMs = parseIsoInstant(parsed.at, { allowDateOnly: false })!;
    const now = this.#clock.now();
    const problem =
      atMs < now - MAX_PAST_MS
        ? "must not be in the past"
        : atMs > now + MAX_FUTURE_MS
          ? "must be within ten years"
          : "";
    if (problem)
      throw new FlagpostError("validation_error", `"at" ${problem}`, { details: [{ path: "at", message: problem }] });
    if (!FLAG_KEY_PATTERN.test(key) || !(await this.#storage.flags.get(key))) throw notFound("Flag", key);
    const record: FlagScheduleRecord = {
      id: uuidv7(now),
      flagKey: key,
      at: atMs,
      changes: parsed.changes,
      status: "pending",
      createdAt: now,
      createdBy: options.actor ?? IN_PROCESS_ACTOR,
      attempts: 0,
      nextAttemptAt: atMs,
    };
    await this.#storage.flagSchedules.insert(record);
    const view = scheduleView(record);
    for (const listener of this.#listeners) listener(view);
    return view;
  }

  /** The flag's schedules by time (of a deleted flag too), in pages; `status` filters. */
  async list(key: string, options: ListSchedulesOptions = {}): Promise<FlagSchedulePage> {
    const query = parseInput(listSchedulesQuerySchema, options);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (!FLAG_KEY_PATTERN.test(key)) throw notFound("Flag", key);
    const rows = await this.#storage.flagSchedules.list(key, {
      limit: query.limit + 1,
      ...(after && { after }),
      ...(query.status && { status: query.status }),
    });
    if (rows.length === 0 && after === undefined && !(await this.#storage.flags.get(key))) {
      // Neither the flag nor any schedule of it (with this filter): as the history does.
      const any = query.status ? await this.#storage.flagSchedules.list(key, { limit: 1 }) : [];
      if (any.length === 0) throw notFound("Flag", key);
    }
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      data: page.map(scheduleView),
      ...(rows.length > query.limit && last ? { nextCursor: encodeCursor(last) } : {}),
    };
  }

  /** Removes the schedule: a pending one is never applied; a finished one's record goes (the history keeps the change). */
  async delete(key: string, id: string): Promise<void> {
    if (!FLAG_KEY_PATTERN.test(key) || !UUID.test(id) || !(await this.#storage.flagSchedules.delete(key, id)))
      throw notFound("Schedule", id);
  }

  /** Calls `listener` after each schedule created through this object (the worker sets a timer). */
  subscribe(listener: (schedule: FlagScheduleView) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
