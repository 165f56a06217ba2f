/**
 * Which event queries count as heavy: the HTTP layer limits how many run at once per key, and
 * the SQL storage runs them on connections of their own. One definition, so both agree.
 */

/** An event query whose window (a missing bound counts as open) is longer than this is heavy. */
export const HEAVY_EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Whether an event query's window is long enough to count as heavy (unparseable bounds count as open). */
export function isHeavyEventQuery(
  query: { from?: string | undefined; to?: string | undefined },
  nowMs: number,
): boolean {
  const from = query.from === undefined ? Number.NaN : Date.parse(query.from);
  const to = query.to === undefined ? nowMs : Date.parse(query.to);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return true;
  return to - from > HEAVY_EVENT_WINDOW_MS;
}
