import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { createFlagpost, type Flagpost, type TrackEventInput } from "flagpost";
import { kyselyStorage, withStatementCache } from "flagpost/kysely";
import { httpIngest } from "./events-http.js";
import { EVENT_NAMES, eventBatch, type StreamShape, streamShape } from "./lib/event-data.js";
import {
  anyQueryMissed,
  measureQueries,
  QUERY_HEADERS,
  QUERY_MISSED_NOTE,
  queryRows,
  type QueryTimes,
  StatementRecorder,
} from "./events-queries.js";
import { Meter } from "./lib/meter.js";
import { postgresUrl } from "./lib/postgres.js";
import type { BenchPart } from "./lib/part.js";
import { table } from "./lib/report.js";
import { silentLogger } from "./lib/silent-logger.js";
import { openSqliteHandle, sqliteSize } from "./lib/sqlite-file.js";
import { fmt, ratio } from "./lib/stats.js";
import { uuidv7 } from "./lib/uuidv7.js";

/**
 * `npm run bench:events` (issue #4): ingest events through trackBatch into SQLite and PostgreSQL
 * and through POST /v1/events/batch into SQLite, each beside the raw driver measured in the same
 * run; then query p50/p99 on the resulting tables.
 */

// The floors write the layout of migration 0022: the name's id from the dictionary, received_at
// NULL (the UUIDv7 id carries that time), on SQLite the properties as JSONB.
const INSERT_SQL =
  "insert into flagpost_events (id, ts, received_at, name_id, user_id, properties) values (?, ?, ?, ?, ?, jsonb(?))";
const UNNEST_SQL =
  "insert into flagpost_events (id, ts, received_at, name_id, user_id, properties) select * from unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::int2[], $5::varchar[], $6::text[])";
/** Fills a floor's name dictionary with the stream's names, before any timing. */
const NAMES_SQL = `insert into flagpost_event_names (name) values ${EVENT_NAMES.map((name) => `('${name}')`).join(", ")}`;

interface Sizes {
  total: number;
  batch: number;
  segments: number;
  queries: number;
  httpConnections: number;
}

const FULL: Sizes = { total: 1_000_000, batch: 1000, segments: 10, queries: 1000, httpConnections: 4 };
const SMOKE: Sizes = { total: 2000, batch: 500, segments: 2, queries: 10, httpConnections: 2 };

type Row = [string | Buffer, number, null, number, string, string];

/** A floor's name ids, read from its dictionary once it is filled. */
type NameIds = ReadonlyMap<string, number>;

/** A UUID's 16 bytes, as the SQLite column holds them (migration 0017). */
const idBytes = (id: string) => Buffer.from(id.replaceAll("-", ""), "hex");

/**
 * The row a raw driver inserts for an event: what flagpost stores, prepared outside the timing
 * (the id as 16 bytes for SQLite, as UUID text for PostgreSQL's uuid column).
 */
function toRows(batch: TrackEventInput[], receivedMs: number, binaryIds: boolean, nameIds: NameIds): Row[] {
  return batch.map((e) => [
    binaryIds ? idBytes(uuidv7(receivedMs)) : uuidv7(receivedMs),
    Date.parse(e.timestamp as string),
    null,
    nameIds.get(e.event)!,
    e.userId,
    JSON.stringify(e.properties ?? {}),
  ]);
}

export function benchDir(): string {
  const base = process.env.FLAGPOST_BENCH_DIR ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  return mkdtempSync(join(base, "flagpost-bench-events-"));
}

const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MiB`;
/** The table's size with its bytes per event. */
const onDisk = (bytes: number, events: number) => `${mib(bytes)} (${fmt(bytes / events, 0)} B/event)`;

interface IngestResult {
  floor: Meter;
  flagpost: Meter;
  floorSize: number;
  flagpostSize: number;
  queries: QueryTimes;
}

/**
 * Ingests the whole stream twice, floor and flagpost taking turns segment by segment, so both
 * tables grow alike and a load spike on the machine hits both.
 */
async function ingestAlternating(
  sizes: Sizes,
  shape: StreamShape,
  label: string,
  steps: {
    binaryIds: boolean;
    nameIds: NameIds;
    floor: (rows: Row[]) => unknown;
    flagpost: (batch: TrackEventInput[]) => Promise<unknown>;
  },
  log: (line: string) => void,
): Promise<{ floor: Meter; flagpost: Meter }> {
  const floor = new Meter();
  const flagpost = new Meter();
  const perSegment = sizes.total / sizes.segments;
  for (let segment = 0; segment < sizes.segments; segment++) {
    const first = segment * perSegment;
    for (let at = first; at < first + perSegment; at += sizes.batch) {
      const rows = toRows(eventBatch(shape, at, sizes.batch), Date.now(), steps.binaryIds, steps.nameIds);
      await floor.time(rows.length, () => steps.floor(rows));
    }
    for (let at = first; at < first + perSegment; at += sizes.batch) {
      const batch = eventBatch(shape, at, sizes.batch);
      await flagpost.time(batch.length, () => steps.flagpost(batch));
    }
    log(
      `${label}: ${first + perSegment} events each (floor ${fmt(floor.perSecond)}/s, flagpost ${fmt(flagpost.perSecond)}/s)`,
    );
  }
  return { floor, flagpost };
}

/** flagpost on a SQLite file as `flagpost serve` opens it, ready: the trackBatch side (bench/compare.ts opens one per side too). */
export async function sqliteFlagpost(
  file: string,
): Promise<{ fp: Flagpost; handle: ReturnType<typeof openSqliteHandle> }> {
  const handle = openSqliteHandle(file);
  const fp = createFlagpost({
    storage: kyselyStorage(new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(handle) }) })),
    logger: silentLogger,
  });
  await fp.ready();
  return { fp, handle };
}

async function sqliteIngest(
  sizes: Sizes,
  shape: StreamShape,
  dir: string,
  log: (line: string) => void,
): Promise<IngestResult> {
  const floorFile = join(dir, "floor.db");
  const floorHandle = openSqliteHandle(floorFile);
  const floorDb = new Kysely<any>({ dialect: new SqliteDialect({ database: floorHandle }) });
  await kyselyStorage(floorDb).migrate(); // the same table and indexes as flagpost's
  floorHandle.exec(NAMES_SQL);
  const nameIds: NameIds = new Map(
    (floorHandle.prepare("select id, name from flagpost_event_names").all() as { id: number; name: string }[]).map(
      (r) => [r.name, r.id],
    ),
  );
  const insert = floorHandle.prepare(INSERT_SQL);
  const insertBatch = floorHandle.transaction((rows: Row[]) => {
    for (const row of rows) insert.run(...row);
  });

  const file = join(dir, "flagpost.db");
  const { fp, handle } = await sqliteFlagpost(file);

  const { floor, flagpost } = await ingestAlternating(
    sizes,
    shape,
    "sqlite",
    { binaryIds: true, nameIds, floor: (rows) => insertBatch(rows), flagpost: (batch) => fp.events.trackBatch(batch) },
    log,
  );
  const queries = await measureQueries(fp, shape, sizes.queries);
  const result = {
    floor,
    flagpost,
    floorSize: sqliteSize(floorHandle, floorFile),
    flagpostSize: sqliteSize(handle, file),
    queries,
  };
  await fp.close();
  handle.close();
  await floorDb.destroy();
  return result;
}

async function postgresIngest(
  url: string,
  sizes: Sizes,
  shape: StreamShape,
  log: (line: string) => void,
): Promise<IngestResult> {
  const suffix = Math.random().toString(36).slice(2, 10);
  const schemas = { floor: `flagpost_bench_floor_${suffix}`, flagpost: `flagpost_bench_${suffix}` };
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const pools: pg.Pool[] = [];
  const pool = (schema: string) => {
    const p = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 4 });
    pools.push(p);
    return p;
  };
  try {
    for (const schema of Object.values(schemas)) await admin.query(`create schema "${schema}"`);
    const floorPool = pool(schemas.floor);
    const floorDb = new Kysely<any>({ dialect: new PostgresDialect({ pool: floorPool }) });
    await kyselyStorage(floorDb).migrate();
    await floorPool.query(NAMES_SQL);
    const nameIds: NameIds = new Map(
      (await floorPool.query<{ id: number; name: string }>("select id, name from flagpost_event_names")).rows.map(
        (r) => [r.name, r.id],
      ),
    );
    const recorder = new StatementRecorder();
    const flagpostPool = pool(schemas.flagpost);
    const fp = createFlagpost({
      storage: kyselyStorage(
        new Kysely<any>({ dialect: new PostgresDialect({ pool: flagpostPool }), log: recorder.log }),
      ),
      logger: silentLogger,
    });
    await fp.ready();

    const unnest = (rows: Row[]) =>
      floorPool.query(
        UNNEST_SQL,
        [0, 1, 2, 3, 4, 5].map((c) => rows.map((r) => r[c])),
      );
    const { floor, flagpost } = await ingestAlternating(
      sizes,
      shape,
      "postgres",
      { binaryIds: false, nameIds, floor: unnest, flagpost: (batch) => fp.events.trackBatch(batch) },
      log,
    );
    // Sizes and query plans after VACUUM ANALYZE, as issue 17 measures them.
    for (const schema of Object.values(schemas)) await admin.query(`vacuum analyze "${schema}".flagpost_events`);
    const queries = await measureQueries(fp, shape, sizes.queries, { recorder, pool: flagpostPool });
    const size = async (schema: string) =>
      Number(
        (await admin.query<{ size: string }>(`select pg_total_relation_size('"${schema}".flagpost_events') as size`))
          .rows[0]!.size,
      );
    const result = {
      floor,
      flagpost,
      floorSize: await size(schemas.floor),
      flagpostSize: await size(schemas.flagpost),
      queries,
    };
    await fp.close();
    await floorDb.destroy();
    return result;
  } finally {
    await Promise.allSettled(pools.map((p) => p.end()));
    for (const schema of Object.values(schemas))
      await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => undefined);
    await admin.end();
  }
}

const verdict = (ok: boolean) => (ok ? "met" : "**missed**");

/** Why HTTP batch ingestion can stay under 90% of in-process trackBatch: what CPU profiles showed. */
const HTTP_MISSED_NOTE =
  "- Why POST /v1/events/batch can stay under 90% of in-process `trackBatch`: the server does all trackBatch does (checking each event, the SQLite insert) plus what HTTP adds, on one thread. " +
  "A CPU profile of `flagpost serve` taking 300,000 events (2026-11-26) put 10.3% of the process's time in reading the body (9.7% JSON.parse of the 150 KB requests, 0.6% their UTF-8 check), 1.3% in writing the 202 (1,000 ids) and about 3% in node:http, beside 10% in trackBatch's own checks and 44% in SQLite's insert. " +
  "Before issue 17 the body was also walked three times (route, list, event) and an idempotent batch serialised and parsed once more; both are gone. What remains is the one JSON.parse the target allows (about 1.7 µs per event, a fifth of SQLite's time) and the HTTP work itself; the faster trackBatch became, the larger that fixed share of it.";

export const eventsPart: BenchPart = {
  name: "events",
  title: "Events: ingestion and keyset queries",
  async run({ smoke, log }) {
    // FLAGPOST_BENCH_EVENTS scales a full run down (or up), e.g. 100000 for a quick look.
    const total = Number(process.env.FLAGPOST_BENCH_EVENTS ?? FULL.total);
    if (!smoke && (!Number.isInteger(total) || total % (FULL.batch * FULL.segments) !== 0))
      throw new Error(`FLAGPOST_BENCH_EVENTS must be a multiple of ${FULL.batch * FULL.segments}`);
    // FLAGPOST_BENCH_EVENTS_QUERIES sets the queries of each kind (default 1,000): fewer keep a look at the ingestion short.
    const queries = Number(process.env.FLAGPOST_BENCH_EVENTS_QUERIES ?? FULL.queries);
    if (!smoke && !(Number.isInteger(queries) && queries > 0))
      throw new Error("FLAGPOST_BENCH_EVENTS_QUERIES must be a positive integer");
    const sizes = smoke ? SMOKE : { ...FULL, total, queries };
    const shape = streamShape(sizes.total, Date.now());
    const loadBefore = loadavg()
      .map((l) => l.toFixed(2))
      .join(", ");
    const dir = benchDir();
    try {
      const sqlite = await sqliteIngest(sizes, shape, dir, log);
      const { url, why } = await postgresUrl(smoke);
      const postgres = url === undefined ? undefined : await postgresIngest(url, sizes, shape, log);
      const http = await httpIngest(sizes, shape, dir, smoke, log);
      const loadAfter = loadavg()
        .map((l) => l.toFixed(2))
        .join(", ");

      const n = fmt(sizes.total);
      const ingest: (string | number)[][] = [
        [
          "SQLite floor: better-sqlite3 prepared INSERT, 1,000 per transaction",
          n,
          fmt(sqlite.floor.perSecond),
          fmt(sqlite.floor.perCpuSecond),
          "1.00×",
          "1.00×",
          onDisk(sqlite.floorSize, sizes.total),
          "",
        ],
        [
          "SQLite: `fp.events.trackBatch`, 1,000 per call",
          n,
          fmt(sqlite.flagpost.perSecond),
          fmt(sqlite.flagpost.perCpuSecond),
          ratio(sqlite.flagpost.perSecond, sqlite.floor.perSecond),
          ratio(sqlite.flagpost.perCpuSecond, sqlite.floor.perCpuSecond),
          onDisk(sqlite.flagpostSize, sizes.total),
          `≥ 90% of floor: ${verdict(sqlite.flagpost.perSecond >= 0.9 * sqlite.floor.perSecond)}; ≤ 150 B/event: ${verdict(sqlite.flagpostSize / sizes.total <= 150)}`,
        ],
      ];
      if (postgres) {
        ingest.push(
          [
            "PostgreSQL floor: pg, INSERT … SELECT unnest($1 … $6), 1,000 per statement",
            n,
            fmt(postgres.floor.perSecond),
            "–",
            "1.00×",
            "–",
            onDisk(postgres.floorSize, sizes.total),
            "",
          ],
          [
            "PostgreSQL: `fp.events.trackBatch`, 1,000 per call",
            n,
            fmt(postgres.flagpost.perSecond),
            "–",
            ratio(postgres.flagpost.perSecond, postgres.floor.perSecond),
            "–",
            onDisk(postgres.flagpostSize, sizes.total),
            `≥ 90% of floor: ${verdict(postgres.flagpost.perSecond >= 0.9 * postgres.floor.perSecond)}; ≤ 260 B/event: ${verdict(postgres.flagpostSize / sizes.total <= 260)}`,
          ],
        );
      } else {
        ingest.push([`PostgreSQL (skipped: ${why})`, "–", "–", "–", "–", "–", "–", ""]);
      }
      ingest.push([
        `HTTP: POST /v1/events/batch → SQLite, 1,000 per request, ${sizes.httpConnections} connections, ${smoke ? "server in process" : "`flagpost serve` in a child process"}`,
        n,
        fmt(http.meter.perSecond),
        http.serverCpuSeconds ? `${fmt(sizes.total / http.serverCpuSeconds)} (server process)` : "–",
        `${ratio(http.meter.perSecond, sqlite.floor.perSecond)} of the SQLite floor`,
        http.serverCpuSeconds
          ? `${ratio(sizes.total / http.serverCpuSeconds, sqlite.floor.perCpuSecond)} of the SQLite floor`
          : "–",
        onDisk(http.size, sizes.total),
        `≥ 90% of trackBatch: ${verdict(http.meter.perSecond >= 0.9 * sqlite.flagpost.perSecond)} (${ratio(http.meter.perSecond, sqlite.flagpost.perSecond)})`,
      ]);

      const queries = [
        ...queryRows("SQLite", sqlite.queries),
        ...(postgres ? queryRows("PostgreSQL", postgres.queries) : []),
      ];
      // The query note explains PostgreSQL's client-side tail only; a SQLite miss gets no excuse.
      const postgresQueryMissed = postgres !== undefined && anyQueryMissed(postgres.queries);
      const notes = [
        ...(http.meter.perSecond < 0.9 * sqlite.flagpost.perSecond ? [HTTP_MISSED_NOTE] : []),
        ...(postgresQueryMissed ? [QUERY_MISSED_NOTE] : []),
      ];
      return [
        table(
          [
            "ingestion",
            "events",
            "events/s (wall)",
            "events per CPU-second",
            "ratio to floor (wall)",
            "ratio (CPU)",
            "table + indexes after VACUUM",
            "target",
          ],
          ingest,
        ),
        "",
        table(QUERY_HEADERS, queries),
        "",
        `(${fmt(sizes.total)} rows; ${fmt(sizes.queries)} queries of each kind per run.)`,
        "",
        ...(notes.length > 0 ? [...notes, ""] : []),
        `Machine load (1/5/15 min) before: ${loadBefore}; after: ${loadAfter}. SQLite files in ${dir.replace(/\/[^/]+$/, "")} with the CLI's pragmas (WAL, synchronous=FULL). ` +
          `Floors and flagpost alternate in ${sizes.segments} segments into tables with the same indexes; times cover the insert calls only (generating the events is excluded on both sides). ` +
          `"events per CPU-second" counts the benchmark process's CPU for the in-process SQLite rows (all the work; PostgreSQL's share runs in its server, hence no figure) and the server process's for HTTP (Linux /proc).`,
      ].join("\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
