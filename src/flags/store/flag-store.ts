import type { Clock } from "../../ports/clock.js";
import { notFound } from "../../errors.js";
import { uuidv7 } from "../../ids.js";
import type { DomainEvent, EpochMs, FlagActor, FlagAudit, Storage } from "../../ports/storage/index.js";
import { flagJson } from "../flag-json.js";
import { parseInput } from "../../validation.js";
import { parseEvaluationContext } from "../evaluation/context.js";
import { decodeFlagCursor, encodeFlagCursor } from "./cursor.js";
import { type EvaluableFlag, evaluate } from "../evaluation/evaluate.js";
import { type FlagWrites, flagWrites } from "./flag-writes.js";
import { FlagSchedules } from "../schedules/flag-schedules.js";
import { changesOf } from "./flag-patch.js";
import { assertRuleVariants } from "../values.js";
import {
  type FlagHistoryPage,
  IN_PROCESS_ACTOR,
  type ListFlagHistoryOptions,
  listFlagHistory,
} from "./flag-history.js";
import {
  type CreateFlagInput,
  createFlagSchema,
  type EvaluationContext,
  type EvaluationResult,
  type Flag,
  type FlagSummary,
  FLAG_KEY_PATTERN,
  listFlagsQuerySchema,
  type UpdateFlagInput,
  updateFlagSchema,
} from "../schema.js";

export type FlagChange = { type: "created" | "updated"; key: string; flag: Flag } | { type: "deleted"; key: string };

export type FlagChangeListener = (change: FlagChange) => void;

export interface FlagPage {
  data: FlagSummary[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** Who is writing, for the flag history. Default: `{type: "in_process"}`. */
export interface FlagWriteOptions {
  actor?: FlagActor;
  /**
   * Set by the schedule worker only: the update applies this claimed schedule, recorded as
   * `scheduled_change_applied`, and fails with `conflict` (changing nothing) when the schedule is
   * no longer pending under that lease (see FlagAudit.schedule).
   */
  schedule?: { id: string; leaseOwner: string };
}

/**
 * What the flag store asks of the in-process snapshot (the FlagClient) to answer an evaluation
 * on a client's behalf, and to count one it answered from storage.
 */
export interface SnapshotEvaluator {
  snapshotEvaluate(key: string, context: EvaluationContext): EvaluationResult | undefined;
  countEvaluation(key: string, result: EvaluationResult): void;
}

export interface FlagStoreOptions {
  /** Answers `evaluateCurrent` without a storage read when it holds the flag. */
  snapshot?: SnapshotEvaluator;
  /** Marks stale flags in `list` (flag-insights.ts); without it none is marked. */
  staleness?: { staleKeys(flags: readonly Flag[]): Promise<ReadonlySet<string>> };
}

export interface ListFlagsOptions {
  limit?: number | string;
  cursor?: string;
}

function summary(flag: Flag, stale: boolean): FlagSummary {
  return {
    id: flag.id,
    key: flag.key,
    description: flag.description,
    enabled: flag.enabled,
    createdAt: flag.createdAt,
    stale,
  };
}

/**
 * `flag.created` / `flag.updated` / `flag.deleted` with the flag as `data` in its wire form (a
 * webhook payload), at `at`; an update adds `changes` and `actor` exactly as the flag history
 * records them.
 */
function flagEvent(
  type: "flag.created" | "flag.updated" | "flag.deleted",
  flag: Flag,
  at: EpochMs,
  extra: Record<string, unknown> = {},
): DomainEvent {
  return { id: uuidv7(at), type, createdAt: at, data: { ...flagJson(flag), ...extra } };
}

/**
 * Flags: validated writes through the storage port, and a change feed. Every successful write
 * notifies subscribers synchronously after it is stored, so an in-process snapshot is never stale.
 */
export class FlagStore {
  readonly #storage: Storage;
  readonly #writes: FlagWrites;
  readonly #clock: Clock;
  readonly #listeners = new Set<FlagChangeListener>();
  readonly #onListenerError: (error: unknown) => void;
  readonly #snapshot: SnapshotEvaluator | undefined;
  /** Scheduled changes: create, list, delete (applied by the ScheduleWorker). */
  readonly schedules: FlagSchedules;
  readonly #staleness: FlagStoreOptions["staleness"];

  constructor(
    storage: Storage,
    clock: Clock,
    onListenerError: (error: unknown) => void = () => undefined,
    options: FlagStoreOptions = {},
  ) {
    this.#storage = storage;
    this.#writes = flagWrites(storage);
    this.#clock = clock;
    this.#onListenerError = onListenerError;
    this.#snapshot = options.snapshot;
    this.schedules = new FlagSchedules(storage, clock);
    this.#staleness = options.staleness;
  }

  async create(input: CreateFlagInput, options: FlagWriteOptions = {}): Promise<Flag> {
    const parsed = parseInput(createFlagSchema, input);
    assertRuleVariants(parsed.rules, parsed.variants);
    const now = this.#clock.now();
    const flag: Flag = { id: uuidv7(now), ...parsed, createdAt: now, updatedAt: now };
    await this.#writes.insert(flag, this.#audit(options), [flagEvent("flag.created", flag, now)]);
    this.#emit({ type: "created", key: flag.key, flag });
    return flag;
  }

  async get(key: string): Promise<Flag> {
    if (!FlagStore.isValidKey(key)) throw notFound("Flag", key); // no such flag can exist: storage is not asked
    const flag = await this.#storage.flags.get(key);
    if (!flag) throw notFound("Flag", key);
    return flag;
  }

  async list(options: ListFlagsOptions = {}): Promise<FlagPage> {
    const query = parseInput(listFlagsQuerySchema, options);
    const after = query.cursor === undefined ? undefined : decodeFlagCursor(query.cursor);
    // One extra row tells whether a next page exists without a second query.
    const rows = await this.#storage.flags.list({ after, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const stale = (await this.#staleness?.staleKeys(page)) ?? new Set<string>();
    return {
      data: page.map((flag) => summary(flag, stale.has(flag.key))),
      ...(rows.length > query.limit && last ? { nextCursor: encodeFlagCursor(last.key) } : {}),
    };
  }

  /**
   * Merge semantics: fields present replace (`rules` replaces the whole list), omitted stay. The
   * patch is checked against the flag as read under its lock, inside the write's transaction.
   */
  async update(key: string, input: UpdateFlagInput, options: FlagWriteOptions = {}): Promise<Flag> {
    const patch = parseInput(updateFlagSchema, input);
    if (!FlagStore.isValidKey(key)) throw notFound("Flag", key);
    const audit = this.#audit(options);
    const updated = await this.#writes.update(
      key,
      (current) => changesOf(patch, current, audit.at, options.schedule !== undefined),
      audit,
      (stored, _before, changes) => [flagEvent("flag.updated", stored, audit.at, { changes, actor: audit.actor })],
    );
    if (!updated) throw notFound("Flag", key);
    this.#emit({ type: "updated", key, flag: updated });
    return updated;
  }

  async delete(key: string, options: FlagWriteOptions = {}): Promise<void> {
    if (!FlagStore.isValidKey(key)) throw notFound("Flag", key);
    const at = this.#clock.now();
    if (!(await this.#writes.delete(key, this.#audit(options), (flag) => [flagEvent("flag.deleted", flag, at)])))
      throw notFound("Flag", key);
    this.#emit({ type: "deleted", key });
  }

  /**
   * Evaluates against the stored flag, and its prerequisites as stored (one read per flag). The
   * in-process client answers from a snapshot; `evaluateCurrent` from a snapshot when it can.
   * No context means an empty one; anything that is not an object (null included) is refused.
   */
  async evaluate(key: string, context: unknown = {}): Promise<EvaluationResult> {
    return this.#evaluateStored(key, parseEvaluationContext(context));
  }

  /**
   * What `POST /v1/flags/{key}/evaluate` answers: from the in-process snapshot when it holds the
   * flag (current with this process's writes at once, with other processes' within the flag sync
   * bound, docs/flags.md), else from storage, so a flag just created elsewhere is found and an
   * unknown one is `not_found`. Either way the evaluation is counted in the insights.
   */
  async evaluateCurrent(key: string, context: unknown = {}): Promise<EvaluationResult> {
    const parsed = parseEvaluationContext(context);
    const fromSnapshot = this.#snapshot?.snapshotEvaluate(key, parsed);
    if (fromSnapshot !== undefined) return fromSnapshot;
    const result = await this.#evaluateStored(key, parsed);
    this.#snapshot?.countEvaluation(key, result);
    return result;
  }

  /** evaluate() on the stored flag, reading the prerequisites it reaches (at most one read each). */
  async #evaluateStored(key: string, context: EvaluationContext): Promise<EvaluationResult> {
    const flag = await this.get(key);
    const reached = new Map<string, EvaluableFlag | undefined>([[key, flag]]);
    let frontier = flag.prerequisites.map((p) => p.flagKey);
    while (frontier.length > 0) {
      const next: string[] = [];
      for (const prerequisite of frontier) {
        if (reached.has(prerequisite)) continue;
        const found = FlagStore.isValidKey(prerequisite) ? await this.#storage.flags.get(prerequisite) : undefined;
        reached.set(prerequisite, found);
        if (found) next.push(...found.prerequisites.map((p) => p.flagKey));
      }
      frontier = next;
    }
    return evaluate(flag, context, (prerequisite) => reached.get(prerequisite));
  }

  /** The flag's changes, newest first; still there after the flag is deleted. */
  history(key: string, options: ListFlagHistoryOptions = {}): Promise<FlagHistoryPage> {
    return listFlagHistory(this.#storage, key, options);
  }

  /** Every flag, for snapshots: walks the keyset pages. */
  async all(): Promise<Flag[]> {
    const flags: Flag[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.#storage.flags.list({ after, limit: 1000 });
      flags.push(...page);
      if (page.length < 1000) return flags;
      after = page.at(-1)!.key;
    }
  }

  revision(): Promise<number> {
    return this.#storage.flags.revision();
  }

  /** Calls `listener` after every write made through this store. Returns the unsubscribe function. */
  subscribe(listener: FlagChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Checks a key's format without touching storage (the dashboard and CLI use it). */
  static isValidKey(key: string): boolean {
    return typeof key === "string" && FLAG_KEY_PATTERN.test(key);
  }

  #audit(options: FlagWriteOptions): FlagAudit {
    const audit: FlagAudit = {
      at: this.#clock.now(),
      actor: options.actor ?? IN_PROCESS_ACTOR,
    };
    if (options.schedule) Object.assign(audit, { action: "scheduled_change_applied", schedule: options.schedule });
    return audit;
  }

  #emit(change: FlagChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#onListenerError(error); // a faulty subscriber must not fail the write that succeeded
      }
    }
  }
}
