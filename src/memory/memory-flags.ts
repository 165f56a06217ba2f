import { FlagpostError } from "../errors.js";
import { flagChanges } from "../flags/history-diff.js";
import { checkDeletable, checkPrerequisites, type PrerequisiteGraph } from "../flags/prerequisites.js";
import { uuidv7 } from "../ids.js";
import type {
  DomainEvent,
  EventsFor,
  FlagAudit,
  FlagChanges,
  FlagHistoryAction,
  FlagRecord,
  FlagRepository,
} from "../storage/index.js";
import type { MemoryFlagHistoryRepository } from "./memory-flag-history.js";
import type { MemoryFlagScheduleRepository } from "./memory-flag-schedules.js";
import type { MemoryWebhookState } from "./memory-webhook-state.js";

export class MemoryFlagRepository implements FlagRepository {
  readonly #flags = new Map<string, FlagRecord>();
  readonly #history: MemoryFlagHistoryRepository;
  readonly #webhooks: MemoryWebhookState;
  readonly #schedules: MemoryFlagScheduleRepository;
  #revision = 0;

  constructor(
    history: MemoryFlagHistoryRepository,
    webhooks: MemoryWebhookState,
    schedules: MemoryFlagScheduleRepository,
  ) {
    this.#history = history;
    this.#webhooks = webhooks;
    this.#schedules = schedules;
  }

  async insert(flag: FlagRecord, audit?: FlagAudit, events?: readonly DomainEvent[]): Promise<void> {
    if (this.#flags.has(flag.key)) throw new FlagpostError("conflict", `A flag with key "${flag.key}" already exists`);
    checkPrerequisites(flag.key, flag.prerequisites, this.#graph(), (key) => this.#flags.has(key));
    this.#flags.set(flag.key, structuredClone(flag));
    this.#revision += 1;
    this.#record(flag.key, "created", undefined, flag, audit);
    this.#webhooks.recordDomainEvents(events);
  }

  async get(key: string): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    return flag && structuredClone(flag);
  }

  async list({ after, limit }: { after?: string; limit: number }): Promise<FlagRecord[]> {
    const keys = [...this.#flags.keys()].filter((k) => after === undefined || k > after).sort();
    return keys.slice(0, limit).map((k) => structuredClone(this.#flags.get(k)!));
  }

  async update(
    key: string,
    changes: FlagChanges,
    audit?: FlagAudit,
    events?: (stored: FlagRecord, before: FlagRecord) => readonly DomainEvent[],
  ): Promise<FlagRecord | undefined> {
    const flag = this.#flags.get(key);
    if (!flag) return undefined;
    if (changes.prerequisites !== undefined)
      checkPrerequisites(key, changes.prerequisites, this.#graph(), (other) => this.#flags.has(other));
    const schedule = audit?.schedule;
    if (schedule && !this.#schedules.complete(schedule.id, schedule.leaseOwner, audit.at))
      throw new FlagpostError("conflict", `Schedule "${schedule.id}" is no longer pending under this lease`);
    const { updatedAt, ...fields } = changes;
    const next: FlagRecord = { ...flag, ...structuredClone(fields), updatedAt };
    this.#flags.set(key, next);
    this.#revision += 1;
    this.#record(key, audit?.action ?? "updated", flag, next, audit);
    this.#webhooks.recordDomainEvents(events?.(structuredClone(next), structuredClone(flag)));
    return structuredClone(next);
  }

  async delete(key: string, audit?: FlagAudit, events?: EventsFor<FlagRecord>): Promise<boolean> {
    const flag = this.#flags.get(key);
    if (!flag) return false;
    checkDeletable(key, this.#graph());
    this.#flags.delete(key);
    this.#revision += 1;
    this.#record(key, "deleted", flag, undefined, audit);
    this.#webhooks.recordDomainEvents(events?.(structuredClone(flag)));
    return true;
  }

  async revision(): Promise<number> {
    return this.#revision;
  }

  /** Every flag's prerequisite keys (src/flags/prerequisites.ts); writes are atomic here, being synchronous. */
  #graph(): PrerequisiteGraph {
    const graph = new Map<string, string[]>();
    for (const flag of this.#flags.values())
      if (flag.prerequisites.length > 0)
        graph.set(
          flag.key,
          flag.prerequisites.map((p) => p.flagKey),
        );
    return graph;
  }

  #record(
    flagKey: string,
    action: FlagHistoryAction,
    before: FlagRecord | undefined,
    after: FlagRecord | undefined,
    audit: FlagAudit | undefined,
  ): void {
    if (!audit) return;
    this.#history.append({
      id: uuidv7(),
      flagKey,
      action,
      at: audit.at,
      actor: audit.actor,
      changes: flagChanges(before, after),
    });
  }
}
