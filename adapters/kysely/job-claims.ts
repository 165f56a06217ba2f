import type { AliasedExpression, Expression, SqlBool } from "kysely";
import type { Engine, AnyKysely, AnyExpressionBuilder } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { relaxTransaction, withRelaxedCommit } from "./relaxed-durability.js";
import { inTransaction } from "./transaction.js";
import { claimSet, dueIds, isDue } from "./job-due-rows.js";
import { type Bind, type Bound, compiledOnce, objectKey } from "./compiled-once.js";

/**
 * Claims and lease renewals for any "jobs-shaped" table: the outbox, webhook deliveries,
 * scheduled flag changes. Such a table has the columns
 *   id (text primary key), next_attempt_at (epoch ms: due from then on), attempts (integer),
 *   lease_owner (text, null when free), lease_until (epoch ms, null when free)
 * and an index on (next_attempt_at) or (status, next_attempt_at). The repository that owns the
 * table calls these from its `claim…`/`renew…` methods and maps the rows it gets back.
 *
 * Races are decided by the engine: PostgreSQL and MySQL lock the due rows nobody else has locked
 * (`FOR UPDATE SKIP LOCKED`), so concurrent workers take different jobs instead of queueing behind
 * one another; SQLite has a single writer, so one UPDATE over a subquery is atomic.
 */
export interface JobTableSpec {
  table: string;
  /** Further conditions a due row must meet, e.g. `(eb) => eb("status", "=", "queued")`. */
  ready?: (eb: AnyExpressionBuilder) => Expression<SqlBool>;
}

/** What a claim returns of each row: column names and computed values; default every column. */
export type ClaimColumns = readonly (string | AliasedExpression<unknown, string>)[];

/**
 * A cap per group (a webhook endpoint) on what one claim may take: rows of a group in `full` are
 * not claimed at all, and at most `room(group)` rows of any other group are.
 */
export interface GroupQuota {
  column: string;
  full: readonly string[];
  room(group: string): number;
}

/** How many due rows a capped claim looks at per row it may take: others' rows may lie behind one group's. */
const CANDIDATES_PER_ROW = 4;

/** Due rows of groups with room, longest-due first, as candidates for a capped claim. */
function dueCandidates(db: AnyKysely, spec: JobTableSpec, at: number, limit: number, quota: GroupQuota) {
  return db
    .selectFrom(spec.table)
    .select(["id", `${quota.column} as group_key`])
    .where((eb) => {
      const due = isDue(eb, spec, at);
      return quota.full.length === 0 ? due : eb.and([due, eb(quota.column, "not in", [...quota.full])]);
    })
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(limit * CANDIDATES_PER_ROW);
}

/** The candidates a capped claim takes, in due order, within `limit` and each group's room. */
function withinQuota(candidates: { id: unknown; group_key: unknown }[], limit: number, quota: GroupQuota): string[] {
  const taken = new Map<string, number>();
  const ids: string[] = [];
  for (const { id, group_key } of candidates) {
    if (ids.length >= limit) break;
    const group = String(group_key);
    const count = taken.get(group) ?? 0;
    if (count >= quota.room(group)) continue;
    taken.set(group, count + 1);
    ids.push(String(id));
  }
  return ids;
}

/**
 * Leases up to `limit` due rows of `spec.table` to `owner` until `leaseUntil` (epoch ms), adds 1
 * to their `attempts`, and returns them as stored afterwards (all columns, or `columns`), in no
 * set order. Each row goes to exactly one of several concurrent callers, in this process or in
 * others.
 */
export async function claimDueRows<Row>(
  db: AnyKysely,
  engine: Engine,
  spec: JobTableSpec,
  at: number,
  limit: number,
  leaseUntil: number,
  owner: string,
  columns?: Bound<ClaimColumns>,
  quota?: GroupQuota,
): Promise<Row[]> {
  if (limit <= 0) return [];
  // A claim lost in a crash is claimed again: its commit need not wait for the disk.
  return withRelaxedCommit(db, engine, claimOn);

  /** The claim itself, on the connection the relaxed commit holds. */
  async function claimOn(held: AnyKysely): Promise<Row[]> {
    if (quota) return claimWithinQuota<Row>(held, engine, spec, at, limit, leaseUntil, owner, columns, quota);
    // SQLite's one statement is atomic on its own; elsewhere the claim needs a transaction.
    if (engineTraits(engine).oneWriter)
      return claimDueRowsIn<Row>(held, engine, spec, at, limit, leaseUntil, owner, columns);
    return inTransaction(held, engine, async (trx) => {
      await relaxTransaction(trx, engine);
      return claimDueRowsIn<Row>(trx, engine, spec, at, limit, leaseUntil, owner, columns);
    });
  }
}

/**
 * claimDueRows' work inside a transaction the caller holds (on SQLite, also on its own), so a
 * claim can share a commit with other writes: one UPDATE over the due rows under SQLite's single
 * writer; elsewhere the due rows nobody else has locked, locked, then leased.
 */
export async function claimDueRowsIn<Row>(
  trx: AnyKysely,
  engine: Engine,
  spec: JobTableSpec,
  at: number,
  limit: number,
  leaseUntil: number,
  owner: string,
  columns?: Bound<ClaimColumns>,
): Promise<Row[]> {
  if (limit <= 0) return [];
  const key = `${engine} ${objectKey(spec)} ${columns?.key ?? "*"}`;
  const values = { ...columns?.values, at, limit, leaseUntil, owner };
  const returning = (bind: Bind) => columns?.build(bind);
  if (engineTraits(engine).oneWriter) {
    const update = compiledOnce(
      `claim ${key}`,
      (bind) => {
        const query = trx
          .updateTable(spec.table)
          .set(claimSet(bind("owner"), bind("leaseUntil")))
          .where("id", "in", dueIds(trx, spec, bind("at"), bind("limit")));
        const columns = returning(bind);
        return columns ? query.returning(columns as never) : query.returningAll();
      },
      values,
    );
    return (await trx.executeQuery(update)).rows as Row[];
  }
  const select = compiledOnce(
    `due ${key}`,
    (bind) => dueIds(trx, spec, bind("at"), bind("limit")).forUpdate().skipLocked(),
    values,
  );
  const ids = ((await trx.executeQuery(select)).rows as { id: unknown }[]).map((r) => r.id as string);
  if (ids.length === 0) return [];
  return leaseLocked<Row>(trx, engine, spec, ids, at, leaseUntil, owner, columns);
}

/**
 * claimDueRows under a {@link GroupQuota}: the due candidates are read (and, on PostgreSQL and
 * MySQL, locked with SKIP LOCKED), the ones within the quota chosen here, and only those leased;
 * the UPDATE asks again whether each is due, so a row another worker took meanwhile is left alone.
 */
async function claimWithinQuota<Row>(
  db: AnyKysely,
  engine: Engine,
  spec: JobTableSpec,
  at: number,
  limit: number,
  leaseUntil: number,
  owner: string,
  columns: Bound<ClaimColumns> | undefined,
  quota: GroupQuota,
): Promise<Row[]> {
  const claim = async (trx: AnyKysely) => {
    await relaxTransaction(trx, engine);
    const candidates = dueCandidates(trx, spec, at, limit, quota);
    const rows = await engineTraits(engine).claimRows(candidates).execute();
    const ids = withinQuota(rows as { id: unknown; group_key: unknown }[], limit, quota);
    if (ids.length === 0) return [];
    return leaseLocked<Row>(trx, engine, spec, ids, at, leaseUntil, owner, columns);
  };
  return inTransaction(db, engine, claim);
}

/**
 * Leases the locked rows `ids` to `owner` and returns them as stored afterwards. The UPDATE asks
 * again whether each row is due. The rows are locked by now, so this reads their newest version:
 * should the engine's skip-locked read have judged a row on an older one (a lease another worker
 * took and committed meanwhile), that row is left to its holder. Without UPDATE … RETURNING the
 * leased rows are read back by their lease.
 */
async function leaseLocked<Row>(
  trx: AnyKysely,
  engine: Engine,
  spec: JobTableSpec,
  ids: readonly string[],
  at: number,
  leaseUntil: number,
  owner: string,
  columns: Bound<ClaimColumns> | undefined,
): Promise<Row[]> {
  // Every claim of the outbox runs these: compiled once per table, columns and count of ids.
  const key = `${engine} ${objectKey(spec)} ${columns?.key ?? "*"} ${ids.length}`;
  const values = { ...columns?.values, ...ids, at, leaseUntil, owner };
  const idSlots = (bind: Bind) => ids.map((_, i) => bind(String(i)));
  const update = (bind: Bind) =>
    trx
      .updateTable(spec.table)
      .set(claimSet(bind("owner"), bind("leaseUntil")))
      .where("id", "in", idSlots(bind))
      .where((eb) => isDue(eb, spec, bind("at")));
  if (engineTraits(engine).updateReturning) {
    const returning = (bind: Bind) => {
      const query = update(bind);
      return columns ? query.returning(columns.build(bind) as never) : query.returningAll();
    };
    return (await trx.executeQuery(compiledOnce(`lease ${key}`, returning, values))).rows as Row[];
  }
  await trx.executeQuery(compiledOnce(`lease ${key}`, update, values));
  const read = (bind: Bind) => {
    const query = trx.selectFrom(spec.table);
    return (columns ? query.select(columns.build(bind) as never) : query.selectAll())
      .where("id", "in", idSlots(bind))
      .where("lease_owner", "=", bind("owner"))
      .where("lease_until", "=", bind("leaseUntil"));
  };
  return (await trx.executeQuery(compiledOnce(`leased ${key}`, read, values))).rows as Row[];
}

/**
 * Extends to `leaseUntil` the leases `owner` still holds among `ids` and returns those ids.
 * A row released meanwhile or taken by another owner is left alone: recording a job's outcome
 * MUST set `lease_owner` to null, as a finished job must not be renewed.
 */
export async function renewLeases(
  db: AnyKysely,
  engine: Engine,
  table: string,
  ids: readonly string[],
  owner: string,
  leaseUntil: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const renewed: string[] = [];
  // Chunks keep the statement far below every engine's limit on bound parameters.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    if (engineTraits(engine).updateReturning) {
      const rows = await db
        .updateTable(table)
        .set({ lease_until: leaseUntil })
        .where("id", "in", chunk)
        .where("lease_owner", "=", owner)
        .returning("id")
        .execute();
      renewed.push(...rows.map((r) => r.id as string));
      continue;
    }
    // MySQL has no RETURNING: renew, then read which of them the owner holds (in one transaction).
    renewed.push(
      ...(await inTransaction(db, engine, async (trx) => {
        await trx
          .updateTable(table)
          .set({ lease_until: leaseUntil })
          .where("id", "in", chunk)
          .where("lease_owner", "=", owner)
          .execute();
        return (
          await trx.selectFrom(table).select("id").where("id", "in", chunk).where("lease_owner", "=", owner).execute()
        ).map((r) => r.id as string);
      })),
    );
  }
  return renewed;
}

/** The distinct owners of leases that have not ended at `at` (epoch ms) among ready rows. */
export async function listLeaseOwners(db: AnyKysely, spec: JobTableSpec, at: number): Promise<string[]> {
  let query = db
    .selectFrom(spec.table)
    .select("lease_owner")
    .distinct()
    .where("lease_owner", "is not", null)
    .where("lease_until", ">", at);
  if (spec.ready) query = query.where(spec.ready);
  return (await query.execute()).map((r) => r.lease_owner as string);
}

/** Frees the leases `owners` hold on ready rows (their processes are dead); `attempts` is kept. Returns how many. */
export async function releaseLeases(db: AnyKysely, spec: JobTableSpec, owners: readonly string[]): Promise<number> {
  if (owners.length === 0) return 0;
  let update = db
    .updateTable(spec.table)
    .set({ lease_owner: null, lease_until: null })
    .where("lease_owner", "in", [...owners]);
  if (spec.ready) update = update.where(spec.ready);
  return Number((await update.executeTakeFirst()).numUpdatedRows);
}
