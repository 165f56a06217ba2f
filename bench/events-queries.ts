import type { CompiledQuery, LogEvent } from "kysely";
import type pg from "pg";
import type { Flagpost } from "flagpost";
import { EVENT_NAMES, prng, type StreamShape, USERS } from "./lib/event-data.js";
import { fmt, percentile, summarize } from "./lib/stats.js";

/**
 * The three event queries of bench:events (one user, one event in a 1-day window, a 1-hour
 * window), each run `RUNS` times over the same table; a figure is the median of the runs' p50s or
 * p99s (issue 30: one run's tail moves with whatever else the machine did). On PostgreSQL the
 * statements of the last run are replayed under `EXPLAIN (ANALYZE)` to split each query's time
 * into PostgreSQL's own (planning + execution) and the rest: the driver's round trip, decoding the
 * rows and the benchmark process's event loop.
 */

export const RUNS = 3;
const KINDS = ["user", "eventWindow", "window"] as const;
type Kind = (typeof KINDS)[number];
const LABEL: Record<Kind, string> = {
  user: "one user (limit 100)",
  eventWindow: "one event in a 1-day window (limit 100)",
  window: "a 1-hour window (limit 100)",
};
/** Statements of the last run replayed under EXPLAIN (ANALYZE), per kind. */
const EXPLAINED = 200;

export interface QueryTimes {
  /** Per kind, per run: each query's wall time through fp.events.query, ms. */
  runs: Record<Kind, number[][]>;
  /** PostgreSQL only, per kind: planning + execution time of the replayed statements, ms. */
  server?: Record<Kind, number[]>;
}

/** Collects the statements a Kysely instance runs while `recording` is on (its `log` option). */
export class StatementRecorder {
  recording: CompiledQuery[] | undefined;
  readonly log = (event: LogEvent): void => {
    if (event.level === "query") this.recording?.push(event.query);
  };
}

/** Query latencies through the service, RUNS times; with `replay`, the last run's statements are explained. */
export async function measureQueries(
  fp: Flagpost,
  shape: StreamShape,
  count: number,
  replay?: { recorder: StatementRecorder; pool: pg.Pool },
): Promise<QueryTimes> {
  const random = prng(7);
  const span = shape.endMs - shape.startMs;
  const day = Math.min(86_400_000, span / 2);
  const hour = Math.min(3_600_000, span / 4);
  const make: Record<Kind, () => Record<string, string | undefined>> = {
    user: () => ({ userId: `user_${Math.floor(random() * USERS)}` }),
    eventWindow: () => {
      const from = shape.startMs + random() * (span - day);
      return {
        event: EVENT_NAMES[Math.floor(random() * EVENT_NAMES.length)],
        from: new Date(from).toISOString(),
        to: new Date(from + day).toISOString(),
      };
    },
    window: () => {
      const from = shape.startMs + random() * (span - hour);
      return { from: new Date(from).toISOString(), to: new Date(from + hour).toISOString() };
    },
  };
  const times: QueryTimes = { runs: { user: [], eventWindow: [], window: [] } };
  const recorded: Record<Kind, CompiledQuery[][]> = { user: [], eventWindow: [], window: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const kind of KINDS) {
      for (let i = 0; i < Math.min(20, count); i++) await fp.events.query({ ...make[kind](), limit: 100 }); // warm-up
      const wall: number[] = [];
      for (let i = 0; i < count; i++) {
        const filters = make[kind]();
        const record = replay && run === RUNS - 1 && i < EXPLAINED;
        if (record) replay.recorder.recording = [];
        const started = performance.now();
        const page = await fp.events.query({ ...filters, limit: 100 });
        wall.push(performance.now() - started);
        if (record) recorded[kind].push(replay.recorder.recording!);
        if (replay) replay.recorder.recording = undefined;
        if (page.data.length === 0 && count > 100) throw new Error(`empty page for ${JSON.stringify(filters)}`);
      }
      times.runs[kind].push(wall);
    }
  }
  if (replay) {
    times.server = { user: [], eventWindow: [], window: [] };
    for (const kind of KINDS)
      for (const statements of recorded[kind]) times.server[kind].push(await serverTime(replay.pool, statements));
  }
  return times;
}

/** PostgreSQL's own planning + execution time for one call's statements, ms. */
async function serverTime(pool: pg.Pool, statements: CompiledQuery[]): Promise<number> {
  let total = 0;
  // Only the event reads: the recorder also saw what the process ran meanwhile (the outbox's and
  // the jobs' polls, their transactions).
  const reads = statements.filter((s) => /^\s*(select|with)\b/i.test(s.sql) && s.sql.includes('"flagpost_events"'));
  if (reads.length === 0) throw new Error("a query call ran no read of flagpost_events that could be explained");
  for (const statement of reads) {
    const result = await pool.query<{ "QUERY PLAN": { "Planning Time": number; "Execution Time": number }[] }>(
      `explain (analyze, format json) ${statement.sql}`,
      statement.parameters as unknown[],
    );
    const plan = result.rows[0]!["QUERY PLAN"][0]!;
    total += plan["Planning Time"] + plan["Execution Time"];
  }
  return total;
}

const medianOf = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** A kind's figures: the median over runs of each run's p50 and p99, ms. */
export function querySummary(times: QueryTimes, kind: Kind): { p50: number; p99: number } {
  const runs = times.runs[kind].map((wall) => summarize(wall));
  return { p50: medianOf(runs.map((r) => r.p50)), p99: medianOf(runs.map((r) => r.p99)) };
}

export function anyQueryMissed(times: QueryTimes): boolean {
  return KINDS.some((kind) => querySummary(times, kind).p99 >= 5);
}

export const QUERY_HEADERS = [
  "backend",
  "query through fp.events.query",
  `p50 ms (median of ${RUNS} runs)`,
  `p99 ms (median of ${RUNS} runs)`,
  "of which PostgreSQL (EXPLAIN ANALYZE) p50 / p99 ms",
  "the rest (driver round trip, decoding, event loop) p50 ms",
  "p99 < 5 ms",
];

export function queryRows(backend: string, times: QueryTimes): (string | number)[][] {
  return KINDS.map((kind) => {
    const { p50, p99 } = querySummary(times, kind);
    const server = times.server ? summarize(times.server[kind]) : undefined;
    return [
      backend,
      LABEL[kind],
      fmt(p50, 2),
      fmt(p99, 2),
      server ? `${fmt(server.p50, 2)} / ${fmt(server.p99, 2)}` : "–",
      server ? fmt(p50 - server.p50, 2) : "–",
      p99 < 5 ? "met" : "**missed**",
    ];
  });
}

export const QUERY_MISSED_NOTE =
  "- Where a PostgreSQL query's time goes: the column of PostgreSQL's own time comes from replaying the last run's statements under `EXPLAIN (ANALYZE)` (a bitmap scan of (user_id, ts) and a sort of the user's rows; backward scans of (name_id, ts) and (ts), then an incremental sort of ties by id); what a p99 has beyond it is on the client side — the pg driver's round trip, decoding 100 rows and the event loop of a process that just ingested a million events — and moves with the machine's load.";
