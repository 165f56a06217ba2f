import type { Selectable, Transaction } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import type {
  FlagActor,
  FlagScheduleFailureReason,
  FlagScheduleOutcome,
  FlagScheduleRecord,
  FlagScheduleRepository,
  FlagScheduleStatus,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { StorageActions } from "./storage-errors.js";
import { claimDueRows, type JobTableSpec, listLeaseOwners, releaseLeases, renewLeases } from "./job-claims.js";
import { toNumber } from "./row-codec.js";
import type { FlagpostTables, FlagSchedulesTable } from "./tables.js";
import { EngineRepository } from "./engine-repository.js";

type Row = Selectable<FlagSchedulesTable>;

const TABLE = "flagpost_flag_schedules";
/** Only pending schedules are claimed, renewed by owner lists, or freed. */
const SCHEDULES: JobTableSpec = { table: TABLE, ready: (eb) => eb("status", "=", "pending") };

function toRecord(row: Row): FlagScheduleRecord {
  const record: FlagScheduleRecord = {
    id: row.id,
    flagKey: row.flag_key,
    at: toNumber(row.at),
    changes: JSON.parse(row.changes) as Record<string, unknown>,
    status: row.status as FlagScheduleStatus,
    createdAt: toNumber(row.created_at),
    createdBy: JSON.parse(row.created_by) as FlagActor,
    attempts: toNumber(row.attempts),
    nextAttemptAt: toNumber(row.next_attempt_at),
  };
  if (row.lease_owner !== null) record.leaseOwner = row.lease_owner;
  if (row.lease_until !== null) record.leaseUntil = toNumber(row.lease_until);
  if (row.finished_at !== null) record.finishedAt = toNumber(row.finished_at);
  if (row.failure_reason !== null)
    record.failure = { reason: row.failure_reason as FlagScheduleFailureReason, message: row.failure_message ?? "" };
  return record;
}

/**
 * The applied half of a scheduled flag update, inside the update's transaction (after the flag
 * row is locked, so every writer takes flag row, then schedule row): pending and leased by
 * `owner` → applied. Throws `conflict` when the schedule is not held, so the update rolls back.
 */
export async function completeSchedule(
  trx: Transaction<FlagpostTables>,
  schedule: { id: string; leaseOwner: string },
  at: number,
): Promise<void> {
  const result = await trx
    .updateTable(TABLE)
    .set({ status: "applied", finished_at: checkedEpochMs(at, "at"), lease_owner: null, lease_until: null })
    .where("id", "=", schedule.id)
    .where("status", "=", "pending")
    .where("lease_owner", "=", schedule.leaseOwner)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n)
    throw new FlagpostError("conflict", `Schedule "${schedule.id}" is no longer pending under this lease`);
}

/** `flagpost_flag_schedules`: claims and leases through job-claims.ts, like the email outbox. */
export class KyselyFlagScheduleRepository extends EngineRepository implements FlagScheduleRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyFlagScheduleRepository> = {
    insert: { action: "store the schedule", conflict: (s) => `A schedule with id "${s.id}" already exists` },
    get: "read the schedule",
    list: "list the schedules",
    delete: "delete the schedule",
    claimDue: "claim due schedules",
    renewLeases: "renew the schedule leases",
    listLeaseOwners: "list the schedule lease owners",
    releaseLeases: "release the schedule leases",
    finish: "record the schedule's outcome",
  };

  async insert(s: FlagScheduleRecord): Promise<void> {
    const row = {
      id: s.id,
      flag_key: s.flagKey,
      at: checkedEpochMs(s.at, "at"),
      changes: JSON.stringify(s.changes),
      status: s.status,
      created_at: checkedEpochMs(s.createdAt, "createdAt"),
      created_by: JSON.stringify(s.createdBy),
      attempts: s.attempts,
      next_attempt_at: checkedEpochMs(s.nextAttemptAt, "nextAttemptAt"),
    };
    await this.db.insertInto(TABLE).values(row).execute();
  }

  async get(id: string): Promise<FlagScheduleRecord | undefined> {
    const row = await this.db.selectFrom(TABLE).selectAll().where("id", "=", id).executeTakeFirst();
    return row && toRecord(row);
  }

  async list(
    flagKey: string,
    options: { status?: FlagScheduleStatus; after?: { at: number; id: string }; limit: number },
  ): Promise<FlagScheduleRecord[]> {
    const { status, after, limit } = options;
    let query = this.db
      .selectFrom(TABLE)
      .selectAll()
      .where("flag_key", "=", flagKey)
      .orderBy("at")
      .orderBy("id")
      .limit(limit);
    if (status !== undefined) query = query.where("status", "=", status);
    if (after !== undefined) {
      const at = checkedEpochMs(after.at, "after.at");
      query = query.where((eb) => eb.or([eb("at", ">", at), eb.and([eb("at", "=", at), eb("id", ">", after.id)])]));
    }
    return (await query.execute()).map(toRecord);
  }

  async delete(flagKey: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom(TABLE)
      .where("id", "=", id)
      .where("flag_key", "=", flagKey)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async claimDue(now: number, limit: number, leaseMs: number, owner: string): Promise<FlagScheduleRecord[]> {
    const at = checkedEpochMs(now, "now");
    const rows = await claimDueRows<Row>(this.db, this.engine, SCHEDULES, at, limit, at + leaseMs, owner);
    return rows
      .map(toRecord)
      .sort((a, b) =>
        a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a.id < b.id ? -1 : 1,
      );
  }

  async renewLeases(ids: readonly string[], owner: string, until: number): Promise<string[]> {
    const leaseUntil = checkedEpochMs(until, "until");
    return renewLeases(this.db, this.engine, TABLE, [...new Set(ids)], owner, leaseUntil);
  }

  async listLeaseOwners(now: number): Promise<string[]> {
    const at = checkedEpochMs(now, "now");
    return listLeaseOwners(this.db, SCHEDULES, at);
  }

  async releaseLeases(owners: readonly string[]): Promise<number> {
    return releaseLeases(this.db, SCHEDULES, owners);
  }

  async finish(id: string, owner: string, outcome: FlagScheduleOutcome): Promise<boolean> {
    const set =
      outcome.kind === "retry"
        ? {
            next_attempt_at: checkedEpochMs(outcome.nextAttemptAt, "nextAttemptAt"),
            lease_owner: null,
            lease_until: null,
          }
        : {
            status: "failed",
            finished_at: checkedEpochMs(outcome.at, "at"),
            failure_reason: outcome.reason,
            failure_message: outcome.message,
            lease_owner: null,
            lease_until: null,
          };
    const result = await this.db
      .updateTable(TABLE)
      .set(set)
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
