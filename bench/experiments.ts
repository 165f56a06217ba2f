import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { CompiledQuery, Kysely, type LogEvent, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { createFlagpost, evaluate, type ExperimentResults, type Flagpost } from "flagpost";
import { kyselyStorage, withStatementCache } from "flagpost/kysely";
import { benchDir } from "./events.js";
import { measureGetVariant } from "./experiments-variant.js";
import { EXPERIMENT, type EventRow, experimentRows, VARIANTS } from "./lib/experiment-data.js";
import type { BenchPart } from "./lib/part.js";
import { postgresUrl } from "./lib/postgres.js";
import { table } from "./lib/report.js";
import { silentLogger } from "./lib/silent-logger.js";
import { openSqliteHandle } from "./lib/sqlite-file.js";
import { fmt, median } from "./lib/stats.js";

/**
 * `npm run bench:experiments` (issue 15): `fp.experiments.results` over 1,000,000 events (3
 * variants, 100,000 users) on SQLite and PostgreSQL, target < 2 s each; and getVariant against
 * its floor (experiments-variant.ts). The events are written through the driver in batches of
 * 10,000 rows into the table flagpost migrated (with all its indexes), not timed as part of the
 * results; the plan each database chose is printed with the figures.
 */

interface Sizes {
  users: number;
  perUser: number;
  /** Users per generated batch (× perUser rows). */
  usersPerBatch: number;
  runs: number;
}

const FULL: Sizes = { users: 100_000, perUser: 10, usersPerBatch: 1_000, runs: 5 };
const SMOKE: Sizes = { users: 300, perUser: 10, usersPerBatch: 100, runs: 2 };

/** The flag's own assignment, by the public reference evaluator: the variant flagpost serves each user. */
const EXPERIMENT_FLAG = { key: EXPERIMENT, enabled: true, rules: [], variants: VARIANTS };
const assign = (user: string) => evaluate(EXPERIMENT_FLAG, { userId: user }).variant!;

interface Measured {
  backend: string;
  loadSeconds: number;
  runsMs: number[];
  /** CPU time of this process per run: all of the work on SQLite, only the client's on PostgreSQL. */
  cpuMs: number[];
  results: ExperimentResults;
  plan: string[];
}

/** Writes every batch with `insert`, then times `runs` results calls after one warm-up. */
async function measure(
  backend: string,
  fp: Flagpost,
  sizes: Sizes,
  insert: (rows: EventRow[]) => Promise<unknown> | unknown,
  explain: () => Promise<string[]>,
  log: (line: string) => void,
): Promise<Measured> {
  await fp.flags.create({ key: EXPERIMENT, enabled: true, variants: VARIANTS });
  const nowMs = Date.now();
  const started = performance.now();
  for (let from = 0; from < sizes.users; from += sizes.usersPerBatch) {
    await insert(experimentRows(from, sizes.usersPerBatch, sizes.perUser, assign, nowMs));
    if ((from / sizes.usersPerBatch) % 20 === 19)
      log(`${backend}: ${fmt((from + sizes.usersPerBatch) * sizes.perUser)} events`);
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const query = { metric: "purchase" };
  let results = await fp.experiments.results(EXPERIMENT, query); // warm-up: caches, statement preparation
  const runsMs: number[] = [];
  const cpuMs: number[] = [];
  for (let i = 0; i < sizes.runs; i++) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    results = await fp.experiments.results(EXPERIMENT, query);
    runsMs.push(performance.now() - t0);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
    log(`${backend}: results in ${fmt(runsMs.at(-1)!, 0)} ms`);
  }
  const users = results.variants.reduce((sum, v) => sum + v.users, 0);
  if (users !== sizes.users || results.excludedUsers !== 0)
    throw new Error(`${backend}: ${users} users assigned, ${results.excludedUsers} excluded; expected ${sizes.users}`);
  return { backend, loadSeconds, runsMs, cpuMs, results, plan: await explain() };
}

/** A Kysely that remembers the last statement it ran, to EXPLAIN it afterwards. */
function recording(dialect: SqliteDialect | PostgresDialect): { db: Kysely<any>; last: () => CompiledQuery } {
  let last: CompiledQuery | undefined;
  const db = new Kysely<any>({
    dialect,
    log: (event: LogEvent) => {
      if (event.level === "query" && /flagpost_events/.test(event.query.sql)) last = event.query;
    },
  });
  return { db, last: () => last! };
}

async function sqliteRun(sizes: Sizes, dir: string, log: (line: string) => void): Promise<Measured> {
  const handle = openSqliteHandle(join(dir, "experiments.db"));
  const { db, last } = recording(new SqliteDialect({ database: withStatementCache(handle) }));
  const fp = createFlagpost({ storage: kyselyStorage(db), logger: silentLogger });
  await fp.ready();
  // Ids arrive as UUID text and properties as JSON text; the columns hold 16 bytes and JSONB
  // (migration 0017), and the name's id from the dictionary (migration 0022).
  const addName = handle.prepare("insert into flagpost_event_names (name) values (?) on conflict do nothing");
  const insert = handle.prepare(
    "insert into flagpost_events (id, name_id, user_id, ts, received_at, properties) values (unhex(replace(?, '-', '')), (select id from flagpost_event_names where name = ?), ?, ?, ?, jsonb(?))",
  );
  const insertAll = handle.transaction((rows: EventRow[]) => {
    for (const name of new Set(rows.map((row) => row[1]))) addName.run(name);
    for (const row of rows) insert.run(...row);
  });
  try {
    return await measure(
      "SQLite",
      fp,
      sizes,
      insertAll,
      async () => {
        const statement = last();
        const plan = handle.prepare(`explain query plan ${statement.sql}`).all(...statement.parameters) as {
          detail: string;
        }[];
        return plan.map((row) => row.detail);
      },
      log,
    );
  } finally {
    await fp.close();
    handle.close();
  }
}

async function postgresRun(url: string, sizes: Sizes, log: (line: string) => void): Promise<Measured> {
  const schema = `flagpost_bench_experiments_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`create schema "${schema}"`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
  const { db, last } = recording(new PostgresDialect({ pool }));
  const fp = createFlagpost({ storage: kyselyStorage(db), logger: silentLogger });
  try {
    await fp.ready();
    // The names go to the dictionary first (migration 0022), the events with their names' ids.
    const insert = async (rows: EventRow[]) => {
      await pool.query(
        "insert into flagpost_event_names (name) select distinct unnest($1::varchar[]) on conflict do nothing",
        [rows.map((row) => row[1])],
      );
      await pool.query(
        "insert into flagpost_events (id, name_id, user_id, ts, received_at, properties) select u.id, n.id, u.user_id, u.ts, u.received_at, u.properties from unnest($1::uuid[], $2::varchar[], $3::varchar[], $4::bigint[], $5::bigint[], $6::text[]) as u(id, event, user_id, ts, received_at, properties) join flagpost_event_names n on n.name = u.event",
        [0, 1, 2, 3, 4, 5].map((column) => rows.map((row) => row[column])),
      );
    };
    let batches = 0;
    const total = sizes.users / sizes.usersPerBatch;
    return await measure(
      "PostgreSQL",
      fp,
      sizes,
      async (rows) => {
        await insert(rows);
        // After a bulk load autovacuum analyzes the table within about a minute; do it at once.
        if (++batches === total) await pool.query("analyze flagpost_events");
      },
      async () => {
        const statement = last();
        const { rows } = await pool.query<{ "QUERY PLAN": string }>(
          `explain (analyze, costs off, timing off, summary on) ${statement.sql}`,
          statement.parameters as unknown[],
        );
        return rows.map((row) => row["QUERY PLAN"]);
      },
      log,
    );
  } finally {
    await fp.close().catch(() => undefined);
    await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
    await admin.end();
  }
}

const verdict = (ms: number) => (ms < 2000 ? "met" : "**missed**");

function report(sizes: Sizes, runs: Measured[], skipped: string[]): string {
  const events = sizes.users * sizes.perUser;
  const rows = runs.map((r) => [
    r.backend,
    fmt(events),
    fmt(sizes.users),
    `${r.loadSeconds.toFixed(1)} s (${fmt(events / r.loadSeconds)} events/s)`,
    fmt(median(r.runsMs), 0),
    fmt(Math.max(...r.runsMs), 0),
    fmt(median(r.cpuMs), 0),
    verdict(Math.max(...r.runsMs)),
  ]);
  for (const why of skipped) rows.push([why, "–", "–", "–", "–", "–", "–", ""]);
  const first = runs[0]?.results;
  return [
    table(
      [
        "backend",
        "events",
        "users",
        "bulk load (driver, 10,000 rows a batch)",
        "results p50 ms",
        "results max ms",
        "CPU ms p50 (this process)",
        "< 2 s (max)",
      ],
      rows,
    ),
    "",
    first
      ? `Per variant (the same on every backend): ${first.variants
          .map((v) => `${v.key} ${fmt(v.users)} users, ${((v.conversionRate ?? 0) * 100).toFixed(2)}% converted`)
          .join("; ")}; SRM p = ${first.srm.pValue?.toFixed(3)}.`
      : "",
    ...runs.flatMap((r) => ["", `${r.backend} plan of the results statement:`, "", "```", ...r.plan, "```"]),
  ].join("\n");
}

export const experimentsBench: BenchPart = {
  name: "experiments",
  title: "Experiments: results over 1,000,000 events, and getVariant against its floor",
  async run({ smoke, log }) {
    // FLAGPOST_BENCH_EXPERIMENT_USERS scales a full run (10 events a user), e.g. 10000 for a quick look.
    const users = Number(process.env.FLAGPOST_BENCH_EXPERIMENT_USERS ?? FULL.users);
    if (!smoke && (!Number.isInteger(users) || users % FULL.usersPerBatch !== 0))
      throw new Error(`FLAGPOST_BENCH_EXPERIMENT_USERS must be a multiple of ${FULL.usersPerBatch}`);
    const sizes = smoke ? SMOKE : { ...FULL, users };
    const loadBefore = loadavg()[0]!.toFixed(2);
    const dir = benchDir();
    const runs: Measured[] = [];
    const skipped: string[] = [];
    try {
      runs.push(await sqliteRun(sizes, dir, log));
      const { url, why } = await postgresUrl(smoke);
      if (url) runs.push(await postgresRun(url, sizes, log));
      else skipped.push(`PostgreSQL (skipped: ${why})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const variants = await measureGetVariant(smoke, log);
    return [
      report(sizes, runs, skipped),
      "",
      `SQLite file in ${dir.replace(/\/[^/]+$/, "")} with the CLI's pragmas; no ANALYZE (flagpost never runs it). PostgreSQL: ANALYZE after the load (what autovacuum does within about a minute), EXPLAIN ANALYZE of the same statement after the timed runs. ` +
        `Load average (1 min) at start: ${loadBefore}, at end: ${loadavg()[0]!.toFixed(2)}.`,
      "",
      "### getVariant",
      "",
      variants,
    ].join("\n");
  },
};
