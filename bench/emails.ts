import { loadavg } from "node:os";
import { CONCURRENCY, measure, type Sample, type Variant } from "./emails-measure.js";
import { SIGNING_NOTE, SIGNING_VARIANTS, signingCost } from "./emails-signing.js";
import { canPin, type Child, startChild } from "./lib/child.js";
import type { BenchPart } from "./lib/part.js";
import { postgresUrl } from "./lib/postgres.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";

/**
 * `npm run bench:emails`: emails end to end, from the first call to the sink's last arrival.
 * flagpost (`send` or `sendBatch` → outbox → worker → pooled SMTP) on SQLite and PostgreSQL
 * beside raw pooled nodemailer sending the same messages to the same sink (the floor). The
 * sending side runs in a process pinned to core 0, the smtp-server sink in one pinned to core 1;
 * PostgreSQL, when used, is wherever the server runs. Runs are interleaved over rounds.
 */

const BATCH = 100;

function variants(pgUrl: string | undefined): Variant[] {
  const list: Variant[] = [
    { id: "floor", label: "raw pooled nodemailer (floor)", storage: "—", run: { kind: "floor" } },
    ...SIGNING_VARIANTS,
    {
      id: "sqlite-batch",
      label: `flagpost sendBatch (${BATCH})`,
      storage: "SQLite",
      run: { kind: "flagpost", engine: "sqlite", mode: "batch", batchSize: BATCH },
    },
  ];
  if (pgUrl) {
    list.push(
      {
        id: "pg-send",
        label: "flagpost send",
        storage: "PostgreSQL",
        run: { kind: "flagpost", engine: "postgres", pgUrl, mode: "send" },
      },
      {
        id: "pg-batch",
        label: `flagpost sendBatch (${BATCH})`,
        storage: "PostgreSQL",
        run: { kind: "flagpost", engine: "postgres", pgUrl, mode: "batch", batchSize: BATCH },
      },
    );
  }
  return list;
}

export const emailsBench: BenchPart = {
  name: "emails",
  title: "Emails: send → outbox → worker → pooled SMTP, against raw pooled nodemailer",
  async run({ smoke, log }) {
    const count = smoke ? 50 : 5_000;
    const rounds = smoke ? 1 : 3;
    const load = [loadavg()[0]!];
    const postgres = await postgresUrl(smoke);
    const list = variants(postgres.url);
    const started = await Promise.allSettled([
      startChild<{ port: number }>(new URL("./emails-sink.ts", import.meta.url), [], { core: 1 }),
      startChild(new URL("./emails-sender.ts", import.meta.url), [], { core: 0 }),
    ]);
    const children = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [sink, sender] = children as [Child<{ port: number }>, Child];
      // Warm-up, every variant once: JIT, connections, the sink.
      for (const variant of list) await measure(sender, sink, variant, Math.min(count, 500));
      const samples = new Map<string, Sample[]>();
      for (let round = 1; round <= rounds; round++) {
        log(`round ${round} of ${rounds}`);
        for (const variant of list) {
          const sample = await measure(sender, sink, variant, count);
          samples.set(variant.id, [...(samples.get(variant.id) ?? []), sample]);
          log(
            `${variant.label} (${variant.storage}): ${fmt(sample.e2e)} emails/s end to end, accepted ${fmt(sample.accepted)}/s, p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms`,
          );
        }
      }
      load.push(loadavg()[0]!);
      return report({ list, samples, count, rounds, load, pgWhy: postgres.why });
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
    }
  },
};

/** What the profiles of the sending process showed, for a run where a target is missed. */
const MISSED_NOTE = [
  "- Why the target can be missed (CPU profiles of the sending process, `node --cpu-prof`): the floor does one thing per email, nodemailer's own work (MIME, streams, the SMTP exchange), about 800 µs of CPU per email on the machine these notes were written on. " +
    "flagpost adds what makes the outbox durable: three writes per email (the email and its `queued` event at `send`, the claim with its lease, the outcome with its event), each a commit, and on SQLite with synchronous=FULL an fsync that blocks the event loop. " +
    "These are now grouped — concurrent `send` calls share a commit (about 10 emails each with 10 callers), the worker claims up to 20 at a time into a local queue, and outcomes finishing within 20 ms share one transaction and one UPDATE — which halved flagpost's CPU per email on SQLite (about 2,900 → 1,500 µs for `send`) and took PostgreSQL from about 2,100 to 1,400 µs. " +
    "SQLite statements are now prepared once (`withStatementCache`; better-sqlite3 parsed each of the 6–8 statements per email anew, about 9 µs each). " +
    "What remains, from a profile of 9,500 emails through `send` on SQLite (2026-11-26, per email): nodemailer and Node's streams 1,220 µs against the floor's 1,090; SQLite executing the statements 400 µs, of which about 175 µs is the fsync of each commit (1,547 commits of about 870 µs and 577 claims committing on their own, for 9,500 emails); Kysely building the queries and reading the rows 130 µs; flagpost's own code 180 µs (address checks, row mapping, the outcome). " +
    "The row size is not the cost: the same run with 10-byte bodies made the claim no cheaper (a claim of 16 emails: 265 µs of SQLite work plus its fsync). " +
    "Going further means fewer commits per email (a claim riding on the previous outcome's transaction) or SQLite synchronous=NORMAL (losing durability against power loss); the first reshapes the worker shared by the outbox, webhooks and schedules, the second the durability promise, and both are left for a decision.",
  "- Since issue 30's second pass: the worker's grouped outcome UPDATE (`… where id in (20 ids) and status in ('queued') …`) was planned by SQLite, which keeps no statistics, on the (status, next_attempt_at) index instead of the primary key, so each group of outcomes walked every queued email: 5.9 ms per UPDATE of 20 with 5,000 queued, 0.08 ms by primary key. Accepting outpaces sending, so the queue holds most of a run. Its status term is now kept off the index (PostgreSQL's young tables did the same in a bitmap AND: 0.56 → 0.27 ms), and the UPDATE is compiled once per shape. " +
    "The accept commit's fsync, which better-sqlite3 waited for inside COMMIT on the event loop (1–4 ms, one per group of about 10 emails with 10 callers), is now off the loop with the same durability: the accept commits at NORMAL and `send` answers after an fdatasync of the WAL file on libuv's pool (docs/reliability.md, \"Durability of each commit\").",
];

function report(r: {
  list: Variant[];
  samples: Map<string, Sample[]>;
  count: number;
  rounds: number;
  load: number[];
  pgWhy: string | undefined;
}): string {
  const med = (id: string, pick: (s: Sample) => number | undefined) =>
    median((r.samples.get(id) ?? []).map((s) => pick(s) ?? Number.NaN));
  const floor = med("floor", (s) => s.e2e);
  const floorCpu = med("floor", (s) => s.cpuPerEmail);
  const rows = r.list.map((v) => [
    v.label,
    v.storage,
    fmt(med(v.id, (s) => s.e2e)),
    `${(med(v.id, (s) => s.e2e) / floor).toFixed(2)}×`,
    fmt(med(v.id, (s) => s.accepted)),
    med(v.id, (s) => s.p50).toFixed(2),
    med(v.id, (s) => s.p99).toFixed(2),
    fmt(med(v.id, (s) => s.cpuPerEmail)),
    `${(floorCpu / med(v.id, (s) => s.cpuPerEmail)).toFixed(2)}×`,
  ]);
  const targets = r.list
    .filter((v) => v.id !== "floor")
    .map((v) => {
      const share = med(v.id, (s) => s.e2e) / floor;
      return `- ${v.label} on ${v.storage}: ${(share * 100).toFixed(0)}% of the floor end to end (issue 17 target ≥ 85%: ${share >= 0.85 ? "met" : "MISSED"})`;
    });
  return [
    `${fmt(r.count)} emails per run (one recipient, text + HTML, about 1.6 KB on the wire) to a local smtp-server sink; ${CONCURRENCY} concurrent callers of send/sendBatch and ${CONCURRENCY} concurrent sendMail calls for the floor; ` +
      `the same pooled nodemailer transporter (its defaults: 5 connections, 100 messages each) on both sides; flagpost's worker at its defaults (concurrency 10). ` +
      `SQLite: a fresh file opened as \`flagpost serve\` opens it (WAL, synchronous=FULL); PostgreSQL: a fresh schema, dropped afterwards. ` +
      (canPin() ? "Sender pinned to core 0, sink to core 1. " : "NOT pinned (taskset unavailable or one core). ") +
      `${r.rounds} interleaved rounds after a warm-up run of every row; medians. End to end = from the first call to the sink's last arrival; every run checks that the sink got each email once and that flagpost stored each as \`sent\`. ` +
      `Load average (1 min) at start and end: ${r.load.map((l) => l.toFixed(2)).join(" → ")}.`,
    "",
    table(
      [
        "system",
        "storage",
        "emails/s end to end",
        "vs floor",
        "accepted/s",
        "call p50 ms",
        "call p99 ms",
        "sender CPU µs/email",
        "floor CPU / this",
      ],
      rows,
    ),
    "",
    ...targets,
    ...(targets.some((t) => t.endsWith("MISSED)")) ? MISSED_NOTE : []),
    signingCost(med),
    SIGNING_NOTE,
    ...(r.pgWhy ? [`- PostgreSQL: not measured, ${r.pgWhy}`] : []),
    "- call p50/p99: the latency of one `send` (one email), one `sendBatch` (100 emails) or, for the floor, one `sendMail` until the sink's 250.",
    "- sender CPU: user + system CPU time of the sending process from the first call to the sink's last arrival, per email (fsync waits are not CPU time): a cost measure that other processes on the machine move less than they move rates.",
  ].join("\n");
}
