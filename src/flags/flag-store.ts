import type { Clock } from "../clock.js";
import { FlagpostError, notFound } from "../errors.js";
import { uuidv7 } from "../ids.js";
import type { DomainEvent, FlagActor, FlagAudit, FlagChanges, Storage } from "../storage/index.js";
import { parseInput } from "../validation.js";
import { parseEvaluationContext } from "./context.js";
import { decodeFlagCursor, encodeFlagCursor } from "./cursor.js";
import { evaluate } from "./evaluate.js";
import { FlagSchedules } from "./flag-schedules.js";
import {
  type FlagHistoryPage,
  IN_PROCESS_ACTOR,
  type ListFlagHistoryOptions,
  listFlagHistory,
} from "./flag-history.js";
import {
  type CreateFlagInput,
  createFlagSchema,
  type EvaluationResult,
  type Flag,
  type FlagSummary,
  FLAG_KEY_PATTERN,
  listFlagsQuerySchema,
  type UpdateFlagInput,
  updateFlagSchema,
} from "./schema.js";

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

export interface ListFlagsOptions {
  limit?: number | string;
  cursor?: string;
}

function summary(flag: Flag): FlagSummary {
  return {
    id: flag.id,
    key: flag.key,
    description: flag.description,
    enabled: flag.enabled,
    createdAt: flag.createdAt,
  };
}

/** `flag.created` / `flag.updated` / `flag.deleted` with the flag as `data`, at `at` (ISO). */
function flagEvent(type: "flag.created" | "flag.updated" | "flag.deleted", flag: Flag, at: string): DomainEvent {
  return { id: uuidv7(Date.parse(at)), type, createdAt: at, data: { ...flag } };
}

/**
 * Flags: validated writes through the storage port, and a change feed. Every successful write
 * notifies subscribers synchronously after it is stored, so an in-process snapshot is never stale.
 */
export class FlagStore {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #listeners = new Set<FlagChangeListener>();
  readonly #onListenerError: (error: unknown) => void;
  /** Scheduled changes: create, list, delete (applied by the ScheduleWorker). */
  readonly schedules: FlagSchedules;

  constructor(storage: Storage, clock: Clock, onListenerError: (error: unknown) => void = () => undefined) {
    this.#storage = storage;
    this.#clock = clock;
    this.#onListenerError = onListenerError;
    this.schedules = new FlagSchedules(storage, clock);
  }

  async create(input: CreateFlagInput, options: FlagWriteOptions = {}): Promise<Flag> {
    const parsed = parseInput(createFlagSchema, input);
    const now = new Date(this.#clock.now()).toISOString();
    const flag: Flag = { id: uuidv7(this.#clock.now()), ...parsed, createdAt: now, updatedAt: now };
    await this.#storage.flags.insert(flag, this.#audit(options), [flagEvent("flag.created", flag, now)]);
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
    return {
      data: page.map(summary),
      ...(rows.length > query.limit && last ? { nextCursor: encodeFlagCursor(last.key) } : {}),
    };
  }

  /** Merge semantics: fields present replace (`rules` replaces the whole list), omitted stay. */
  async update(key: string, input: UpdateFlagInput, options: FlagWriteOptions = {}): Promise<Flag> {
    const patch = parseInput(updateFlagSchema, input);
    if (!FlagStore.isValidKey(key)) throw notFound("Flag", key);
    const current = await this.#storage.flags.get(key);
    if (!current) throw notFound("Flag", key);
    if (patch.key !== undefined && patch.key !== current.key) {
      throw new FlagpostError("validation_error", '"key" cannot change', {
        details: [{ path: "key", message: "cannot change" }],
      });
    }
    if (patch.id !== undefined && patch.id !== current.id) {
      throw new FlagpostError("validation_error", '"id" cannot change', {
        details: [{ path: "id", message: "cannot change" }],
      });
    }
    const changes: FlagChanges = { updatedAt: new Date(this.#clock.now()).toISOString() };
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.enabled !== undefined) changes.enabled = patch.enabled;
    if (patch.rules !== undefined) changes.rules = patch.rules;
    if (patch.variants !== undefined) changes.variants = patch.variants;
    // Nothing to change: updatedAt stays (a schedule is still written, so it is completed).
    if (Object.keys(changes).length === 1 && !options.schedule) return current;
    const updated = await this.#storage.flags.update(key, changes, this.#audit(options), (stored) => [
      flagEvent("flag.updated", stored, changes.updatedAt),
    ]);
    if (!updated) throw notFound("Flag", key);
    this.#emit({ type: "updated", key, flag: updated });
    return updated;
  }

  async delete(key: string, options: FlagWriteOptions = {}): Promise<void> {
    if (!FlagStore.isValidKey(key)) throw notFound("Flag", key);
    const at = new Date(this.#clock.now()).toISOString();
    if (!(await this.#storage.flags.delete(key, this.#audit(options), (flag) => [flagEvent("flag.deleted", flag, at)])))
      throw notFound("Flag", key);
    this.#emit({ type: "deleted", key });
  }

  /**
   * Evaluates against the stored flag (one read). The in-process client answers from a snapshot.
   * No context means an empty one; anything that is not an object (null included) is refused.
   */
  async evaluate(key: string, context: unknown = {}): Promise<EvaluationResult> {
    const parsed = parseEvaluationContext(context);
    return evaluate(await this.get(key), parsed);
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
      at: new Date(this.#clock.now()).toISOString(),
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
