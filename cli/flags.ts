import type { Flagpost } from "../src/flagpost.js";
import { UsageError } from "./args.js";
import type { Output } from "./keys.js";

/** `--days` for `flags stale`: whole days from 1 to 3650 (default: insights.staleAfterDays, 30). */
export function parseStaleDays(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const days = Number(text);
  if (!/^\d+$/.test(text.trim()) || days < 1 || days > 3650)
    throw new UsageError(`--days must be a whole number of days from 1 to 3650, not "${text}"`);
  return days;
}

/**
 * `flagpost flags stale`: the flags not evaluated, or answering one result only, for the stale
 * window (docs/flags.md "Insights"), one per line: key, why, and when last evaluated. The counts
 * it reads are those the serving processes have stored (every FLAGPOST_INSIGHTS_FLUSH_MS).
 */
export async function listStaleFlags(fp: Flagpost, days: number, io: Output): Promise<void> {
  const stale = await fp.flagInsights.stale();
  if (stale.length === 0) {
    io.out(await whyNoneStale(fp, days));
    return;
  }
  const rows = stale.map((flag) => [
    flag.key,
    flag.reason === "constant" ? `always ${flag.result}` : "not evaluated",
    flag.lastEvaluatedAt ?? "never",
  ]);
  const header = ["KEY", "WHY", "LAST EVALUATED"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < cells.length - 1 ? cell.padEnd(widths[i]!) : cell)).join("  ");
  io.out(line(header));
  for (const row of rows) io.out(line(row));
  io.out(`${stale.length} stale flag${stale.length === 1 ? "" : "s"} (window: ${dayCount(days)}).`);
}

function dayCount(days: number): string {
  return `${days} day${days === 1 ? "" : "s"}`;
}

/** Only a flag older than the window can be stale: say which case "none" is. */
async function whyNoneStale(fp: Flagpost, days: number): Promise<string> {
  const since = fp.clock.now() - days * 86_400_000;
  let flags = 0;
  let old = 0;
  let cursor: string | undefined;
  do {
    const page = await fp.flags.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    flags += page.data.length;
    old += page.data.filter((flag) => flag.createdAt <= since).length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  if (flags === 0) return "No stale flags: there are no flags.";
  if (old === 0)
    return `No stale flags: every flag is younger than the window (${dayCount(days)}), and only an older one can be stale.`;
  return `No stale flags: every flag older than the window gave more than one result in it (${dayCount(days)}).`;
}
