import { z } from "zod";
import { parseIsoInstant } from "../time.js";

/**
 * The instants a request carries (`scheduled_at` on a send or an update, `occurred_at` on a report
 * by hand), read from text once, by the schema, and carried on as epoch milliseconds.
 */

const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

const INSTANT_RULE = 'must be an ISO 8601 date-time with a time zone, such as "2026-05-01T09:00:00Z"';

/**
 * An ISO 8601 date-time with a zone, read here once into epoch milliseconds: the checks after the
 * schema and the record it becomes take the number, so none of them parses the text again.
 */
export const instantSchema = z.string().transform((text, ctx) => {
  const ms = parseIsoInstant(text, { allowDateOnly: false });
  if (ms !== undefined) return ms;
  // `continue`: the request's other problems are still reported with this one, as a refinement's are.
  ctx.addIssue({ code: "custom", message: INSTANT_RULE, continue: true });
  return z.NEVER;
});

/** Why `scheduledAtMs` cannot be a send time at `now` (in the future, at most 30 days ahead), or undefined when it can. */
export function scheduleProblem(scheduledAtMs: number, now: number): string | undefined {
  if (scheduledAtMs <= now) return "must be in the future";
  if (scheduledAtMs > now + MAX_SCHEDULE_AHEAD_MS) return "must be at most 30 days ahead";
  return undefined;
}
