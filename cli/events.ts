import type { Flagpost } from "../src/flagpost.js";
import { FlagpostError } from "../src/errors.js";
import { UsageError } from "./args.js";
import type { Output } from "./keys.js";

const DAY_MS = 86_400_000;

/**
 * `--before` for `events purge`: an ISO 8601 date (midnight UTC) or date-time with a zone, or a
 * number of days ago ("90d"), for cron jobs that keep a rolling window.
 */
export function parseBefore(text: string | undefined, now: number): string | Date {
  if (text === undefined) throw new UsageError("events purge needs --before, e.g. --before 2026-01-01 or --before 90d");
  const days = /^(\d{1,6})d$/.exec(text.trim());
  if (days) return new Date(now - Number(days[1]) * DAY_MS);
  return text;
}

export async function purgeEvents(fp: Flagpost, before: string | Date, io: Output): Promise<void> {
  try {
    const deleted = await fp.events.purgeBefore(before);
    const cutoff = before instanceof Date ? before.toISOString() : before;
    io.out(`Deleted ${deleted} event${deleted === 1 ? "" : "s"} with a timestamp before ${cutoff}.`);
  } catch (error) {
    if (error instanceof FlagpostError && error.code === "validation_error")
      throw new UsageError(`--before ${error.details?.[0]?.message ?? error.message}`);
    throw error;
  }
}

export async function deleteUserEvents(fp: Flagpost, userId: string, io: Output): Promise<void> {
  try {
    const deleted = await fp.events.deleteByUser(userId);
    io.out(`Deleted ${deleted} event${deleted === 1 ? "" : "s"} of user ${JSON.stringify(userId)}.`);
  } catch (error) {
    if (error instanceof FlagpostError && error.code === "validation_error")
      throw new UsageError(`--user ${error.details?.[0]?.message ?? error.message}`);
    throw error;
  }
}
