import { readdirSync, readFileSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { DeliveryReport } from "flagpost";
import { mailReportParser } from "flagpost/inbound";
import { builtPackageEntry } from "../lib/built-package.js";
import { SENDER_SIDE_REASONS } from "./sender-side-reasons.js";
import type { ExpectedRecipient } from "./sisimai-expect.js";

/**
 * The bounce corpus runner: `npm run bench:bounces -- <folder> [--expect file.json] [--misses] [--cold]`.
 * Parses every message of a folder with flagpost's report parser and prints how many it
 * recognises, how fast, and, given expectations (bench/bounces/sisimai-expect.ts builds them from
 * Sisimai's test lists), how often flagpost agrees on the recipients, status, reason and hard/soft
 * verdict of each. See docs/emails.md, "Measuring on Sisimai's corpus".
 */
const args = process.argv.slice(2);
const folder = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--expect");
if (folder === undefined) {
  process.stderr.write("usage: npm run bench:bounces -- <folder> [--expect file.json] [--misses] [--cold]\n");
  process.exit(2);
}
const expectAt = args.indexOf("--expect");
const expectations: Record<string, ExpectedRecipient[]> | undefined =
  expectAt >= 0 ? JSON.parse(readFileSync(args[expectAt + 1]!, "utf8")) : undefined;
const showMisses = args.includes("--misses");
process.stderr.write(`flagpost loaded from ${builtPackageEntry()}\n`);

const NOT_BOUNCES = new Set(["vacation", "delivered"]);
const parser = mailReportParser();
const files = readdirSync(folder)
  .filter((name) => statSync(join(folder, name)).isFile() && !name.startsWith("."))
  .filter((name) => expectations === undefined || expectations[name] !== undefined)
  .sort();

const times: number[] = [];
/**
 * Each message's fastest of five parses: on a busy machine a single pass's p95 is mostly the
 * scheduler (one preemption adds a few milliseconds to whichever parse it lands in; p95 went from
 * 0.9 to 5 ms between two runs at a 1-minute load of 4–6), the fastest of five is what a parse costs.
 */
const bestTimes: number[] = [];
const REPEATS = 5;
const misses: string[] = [];
const disagreements: string[] = [];
let crashes = 0;
let bounceMessages = 0;
let recognised = 0;
let countAgrees = 0;
let falsePositives = 0;
let quietMessages = 0;
let senderSidePermanent = 0;
const rows = { all: 0, compared: 0, status: 0, reason: 0, hardSoft: 0 };

/** The reason a report stands for, in Sisimai's names (complaints are `feedback`). */
function reasonOf(report: DeliveryReport): string | undefined {
  if (report.type === "complained") return "feedback";
  if (report.type === "auto_replied") return "vacation";
  return report.reason;
}

/** Sisimai writes `5.0.9xx` where no server gave a status; only its class can be compared. */
function statusAgrees(expected: string, got: string | undefined): boolean {
  if (expected === "") return true;
  if (/^\d\.0\.9\d\d$/.test(expected)) return got?.[0] === expected[0];
  return got === expected;
}

// An untimed pass over every message first, so the times are of warm code, as in a server that has
// been reading reports for a while: each of the ~40 readers is compiled on the first message it
// reads, and a pass over only the first messages left most of them cold (p95 3.2–3.5 ms instead of
// under 1 ms). The cold first parse is what the `max` line shows when run with `--cold`.
const cold = args.includes("--cold");
if (!cold) for (const name of files) await parser.parse(readFileSync(join(folder, name))).catch(() => []);
const loadAtStart = loadavg()[0]!;

for (const name of files) {
  const raw = readFileSync(join(folder, name));
  let reports: DeliveryReport[];
  const started = performance.now();
  try {
    reports = await parser.parse(raw);
  } catch {
    crashes++;
    reports = [];
  }
  times.push(performance.now() - started);
  let best = times.at(-1)!;
  for (let i = 1; i < REPEATS; i++) {
    const again = performance.now();
    await parser.parse(raw).catch(() => []);
    best = Math.min(best, performance.now() - again);
  }
  bestTimes.push(best);

  for (const r of reports)
    if (r.bounce?.type === "Permanent" && SENDER_SIDE_REASONS.has(r.reason!)) senderSidePermanent++;
  const outcomes = reports.filter((r) => r.type !== "auto_replied");
  const expected = expectations?.[name];
  if (expected !== undefined && expected.every((e) => NOT_BOUNCES.has(e.reason))) {
    // A vacation reply or a delivered-only report: no bounce or complaint may come of it.
    quietMessages++;
    if (outcomes.some((r) => r.type === "bounced" || r.type === "complained")) {
      falsePositives++;
      disagreements.push(`${name}: false positive (${outcomes.map((r) => r.type).join(", ")})`);
    }
    continue;
  }
  bounceMessages++;
  if (outcomes.length > 0) recognised++;
  else misses.push(name);
  if (expected === undefined) continue;
  if (outcomes.length === expected.length) countAgrees++;
  expected.forEach((e, i) => {
    rows.all++;
    const got = outcomes[i];
    if (got === undefined) return;
    rows.compared++;
    const reason = reasonOf(got);
    if (statusAgrees(e.status, got.status)) rows.status++;
    if (reason === e.reason) rows.reason++;
    if ((got.bounce?.type === "Permanent") === e.hardBounce) rows.hardSoft++;
    else disagreements.push(`${name}#${i + 1}: hard/soft ${got.bounce?.type ?? "none"}, Sisimai hard=${e.hardBounce}`);
    if (reason !== e.reason) {
      const words = (got.diagnostic ?? "").slice(0, 120);
      disagreements.push(
        `${name}#${i + 1}: reason ${reason}, Sisimai ${e.reason} (status ${got.status ?? "-"}) ${words}`,
      );
    }
  });
}

const percent = (n: number, of: number) => (of === 0 ? "-" : `${((100 * n) / of).toFixed(1)}%`);
const line = (label: string, n: number, of: number) =>
  `${label.padEnd(34)} ${`${n}/${of}`.padStart(9)}  ${percent(n, of)}`;
const quantile = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `${at(0.5).toFixed(2)} / ${at(0.95).toFixed(2)} / ${(sorted.at(-1) ?? 0).toFixed(2)} ms`;
};
const out = [
  `messages                           ${String(files.length).padStart(9)}`,
  line("bounces and complaints recognised", recognised, bounceMessages),
];
if (expectations !== undefined) {
  out.push(
    line("recipient count agrees", countAgrees, bounceMessages),
    line("status agrees (recognised rows)", rows.status, rows.compared),
    line("reason agrees (recognised rows)", rows.reason, rows.compared),
    line("hard/soft agrees (recognised rows)", rows.hardSoft, rows.compared),
    line("hard/soft agrees (all rows)", rows.hardSoft, rows.all),
    line("vacation/delivered false positives", falsePositives, quietMessages),
  );
}
out.push(
  `sender-side reasons marked Permanent ${String(senderSidePermanent).padStart(7)}`,
  `crashes                            ${String(crashes).padStart(9)}`,
  `parse time p50 / p95 / max         ${quantile(times)} (${cold ? "cold" : "warm"} code, 1-minute load ${loadAtStart.toFixed(2)})`,
  `parse time, fastest of ${REPEATS} per message ${quantile(bestTimes)}`,
);
process.stdout.write(`${out.join("\n")}\n`);
if (showMisses) {
  process.stdout.write(`\nnot recognised (${misses.length}):\n${misses.join("\n")}\n`);
  process.stdout.write(`\ndisagreements (${disagreements.length}):\n${disagreements.join("\n")}\n`);
}
