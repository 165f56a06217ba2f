/**
 * Which event queries count as heavy: the HTTP layer limits how many run at once per key, and
 * the SQL storage runs them on connections of their own. One definition, so both agree.
 */

/** An event query whose window (a missing bound counts as open) is longer than this is heavy. */
export const HEAVY_EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A bound as the HTTP query gives it (text) or the storage port does (epoch ms). */
type Bound = string | number | undefined;

const boundMs = (bound: Bound, missing: number) =>
  bound === undefined ? missing : typeof bound === "number" ? bound : Date.parse(bound);

/** Whether an event query's window is long enough to count as heavy (unparseable bounds count as open). */
export function isHeavyEventQuery(query: { from?: Bound; to?: Bound }, nowMs: number): boolean {
  const from = boundMs(query.from, Number.NaN);
  const to = boundMs(query.to, nowMs);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return true;
  return to - from > HEAVY_EVENT_WINDOW_MS;
}
