import { CONCURRENCY, measure, type Sample, type Variant } from "./emails-measure.js";
import { canPin, type Child, startChild } from "./lib/child.js";
import type { BenchPart } from "./lib/part.js";
import { loadLine, oneMinuteLoad } from "./lib/load.js";
import { table } from "./lib/report.js";
import { fmt, median } from "./lib/stats.js";

/**
 * `npm run bench:signing`: what DKIM signing adds to an email (issue 28: at most 15% of the
 * per-email time). bench:emails' `send` row on SQLite, unsigned and signed, in the same processes
 * and interleaved rounds, sized to finish within about two minutes. Besides the time per email
 * end to end and the sending process's CPU, it reports the CPU of the sender's event-loop thread.
 * The sender's event loop is pinned to core 0 and both rows run in two layouts, each with what
 * the transport's default gives there (docs/domains.md, "Signing"): on one core, libuv's thread
 * pool on that core too and no signing thread (signingThreads 0: canonicalization and hashes on
 * the loop, the RSA operation on the pool), everything signing costs paid on one core as
 * bench:emails measures it; and a server with a spare core, the pool and one signing thread
 * (a worker thread that canonicalizes, hashes and signs) free to use both cores. The rows keep
 * the name "thread pool" for both.
 */

const UNSIGNED: Variant = {
  id: "sqlite-send",
  label: "flagpost send",
  storage: "SQLite",
  run: { kind: "flagpost", engine: "sqlite", mode: "send", signingThreads: 0 },
};
const SIGNED: Variant = {
  id: "sqlite-send-signed",
  label: "flagpost send, DKIM-signed",
  storage: "SQLite",
  run: { kind: "flagpost", engine: "sqlite", mode: "send", signed: true, signingThreads: 0 },
};

/** The rows bench:emails adds for signing. */
export const SIGNING_VARIANTS: readonly Variant[] = [UNSIGNED, SIGNED];

/**
 * Both rows again with the thread pool and one signing thread free to use both cores: the process
 * is pinned when it starts, so the default would give no thread here; 1 is what it gives a
 * process with two cores.
 */
const SPREAD: readonly Variant[] = SIGNING_VARIANTS.map((v) => ({
  ...v,
  id: `${v.id}-spread`,
  label: `${v.label}, thread pool on both cores`,
  run: { ...v.run, spreadPool: true, signingThreads: 1 },
}));
const [UNSIGNED_SPREAD, SIGNED_SPREAD] = SPREAD as [Variant, Variant];

type Median = (id: string, pick: (s: Sample) => number | undefined) => number;

const orDash = (x: number) => (Number.isNaN(x) ? "—" : fmt(x));
const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;

/** Signed against unsigned, from the medians of both rows: the lines under a table. */
export function signingCost(med: Median, signed: Variant = SIGNED, unsigned: Variant = UNSIGNED): string {
  const perEmail = (id: string) => 1000 / med(id, (s) => s.e2e);
  const time = perEmail(signed.id) / perEmail(unsigned.id) - 1;
  const cpu = med(signed.id, (s) => s.cpuPerEmail) / med(unsigned.id, (s) => s.cpuPerEmail) - 1;
  const loop = med(signed.id, (s) => s.loopCpuPerEmail) / med(unsigned.id, (s) => s.loopCpuPerEmail) - 1;
  const where = signed.run.spreadPool ? "thread pool on both cores" : "thread pool on the event loop's core";
  return `- DKIM signing (flagpost send on SQLite, signed against unsigned, ${where}): ${perEmail(signed.id).toFixed(3)} against ${perEmail(unsigned.id).toFixed(3)} ms per email end to end (${pct(time)}; issue 28 target ≤ +15%: ${time <= 0.15 ? "met" : "MISSED"}), sender CPU ${pct(cpu)} per email, sender event-loop thread CPU ${Number.isNaN(loop) ? "not measured (no /proc)" : pct(loop)} per email.`;
}

/** How signed mail is made, for the notes under a table. */
export const SIGNING_NOTE =
  "- Signed emails come from a verified domain (RSA 2048 key, sealed under a secret, opened once). flagpost's signer runs inside nodemailer's `sendMail` pipeline (a stream plugin): it reads the message nodemailer composed and signs it where the transport's default would on that many cores (docs/domains.md, \"Signing\"): in the rows on the event loop's core with signingThreads 0, no thread: the event loop canonicalizes the message and hashes the relaxed body and header fields, and the RSA signature runs on libuv's thread pool; in the rows on both cores with signingThreads 1, the message is transferred to one signing thread (a worker thread), which canonicalizes, hashes and signs, and hands it back with its DKIM-Signature field; \"thread pool\" in the rows' names covers the signing thread as well as libuv's thread pool; the sink checks that every email of the signed rows carries a DKIM-Signature and no other does.";

/**
 * Signed against unsigned round by round: the two runs of a round follow each other, so on a
 * machine whose load swings they compare like with like better than medians taken apart.
 */
function pairedRounds(samples: Map<string, Sample[]>, signedRow: Variant, unsignedRow: Variant): string {
  const signed = samples.get(signedRow.id) ?? [];
  const unsigned = samples.get(unsignedRow.id) ?? [];
  const ratios = (pick: (s: Sample) => number | undefined) =>
    signed.map((s, i) => (pick(s) ?? Number.NaN) / (pick(unsigned[i]!) ?? Number.NaN) - 1);
  const line = (pick: (s: Sample) => number | undefined) => {
    const each = ratios(pick);
    return `${each.map(pct).join(", ")} (median ${pct(median(each))})`;
  };
  return (
    `- Round by round, signed against unsigned${signedRow.run.spreadPool ? ", thread pool on both cores" : ""}: time per email ${line((s) => 1 / s.e2e)}; ` +
    `sender CPU ${line((s) => s.cpuPerEmail)}; event-loop thread CPU ${line((s) => s.loopCpuPerEmail)}.`
  );
}

export const signingBench: BenchPart = {
  name: "signing",
  title: "Emails: what DKIM signing costs (issue 28)",
  async run({ smoke, log }) {
    const count = smoke ? 50 : 800;
    const rounds = smoke ? 1 : 3;
    const loadBefore = oneMinuteLoad();
    const started = await Promise.allSettled([
      startChild<{ port: number }>(new URL("./emails-sink.ts", import.meta.url), [], { core: 1 }),
      startChild(new URL("./emails-sender.ts", import.meta.url), [], { core: 0 }),
    ]);
    const children = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      const failed = started.find((s) => s.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [sink, sender] = children as [Child<{ port: number }>, Child];
      // Unpinned, the pool is free anyway: the second layout would be the first again.
      const variants = canPin() ? [...SIGNING_VARIANTS, ...SPREAD] : SIGNING_VARIANTS;
      for (const variant of variants) await measure(sender, sink, variant, Math.min(count, 100));
      const samples = new Map<string, Sample[]>();
      for (let round = 1; round <= rounds; round++) {
        for (const variant of variants) {
          const sample = await measure(sender, sink, variant, count);
          samples.set(variant.id, [...(samples.get(variant.id) ?? []), sample]);
          log(
            `round ${round}, ${variant.label}: ${fmt(sample.e2e)} emails/s, CPU ${fmt(sample.cpuPerEmail)} µs/email, event loop ${orDash(sample.loopCpuPerEmail ?? Number.NaN)} µs/email`,
          );
        }
      }
      const med: Median = (id, pick) => median((samples.get(id) ?? []).map((s) => pick(s) ?? Number.NaN));
      const rows = variants.map((v) => [
        v.label,
        v.storage,
        (1000 / med(v.id, (s) => s.e2e)).toFixed(3),
        fmt(med(v.id, (s) => s.cpuPerEmail)),
        orDash(med(v.id, (s) => s.loopCpuPerEmail)),
      ]);
      return [
        `${fmt(count)} emails per run (bench:emails' messages: one recipient, text + HTML), ${CONCURRENCY} concurrent callers of \`send\`, the worker at its defaults, one pooled nodemailer transporter to a local smtp-server sink. ` +
          (canPin()
            ? "Sender's event loop pinned to core 0, sink to core 1; the sender's thread pool on core 0 too, or on both cores in the rows that say so. "
            : "NOT pinned. ") +
          `${rounds} interleaved rounds after a warm-up of each row; medians. ${loadLine(loadBefore, oneMinuteLoad())}`,
        "",
        table(
          [
            "system",
            "storage",
            "ms per email end to end",
            "sender CPU µs/email",
            "sender event-loop thread CPU µs/email",
          ],
          rows,
        ),
        "",
        signingCost(med),
        ...(canPin() ? [signingCost(med, SIGNED_SPREAD, UNSIGNED_SPREAD)] : []),
        SIGNING_NOTE,
        pairedRounds(samples, SIGNED, UNSIGNED),
        ...(canPin() ? [pairedRounds(samples, SIGNED_SPREAD, UNSIGNED_SPREAD)] : []),
        "- event-loop thread CPU: user + system time of the sender's main thread (/proc/self/task/<pid>/stat), which runs the event loop; the sender CPU column adds the signing threads, the thread pool and the other threads. The thread pool's threads are found by the work they do, the signing threads as the threads started after that (bench/lib/thread-pool-cores.ts), and both are moved with taskset before each run; V8's own threads stay on core 0.",
      ].join("\n");
    } finally {
      await Promise.allSettled(children.map((c) => c.close()));
    }
  },
};
