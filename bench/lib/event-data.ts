import type { TrackEventInput } from "flagpost";

/**
 * Deterministic event streams for the events benchmark: a realistic shape (10,000 users, 50 event
 * names, timestamps moving forward through a 30-day window with a little jitter, ~100 bytes of
 * properties), generated batch by batch so a million events never sit in memory at once.
 */

export const USERS = 10_000;
export const EVENT_NAMES = Array.from({ length: 50 }, (_, i) =>
  i === 0 ? "purchase" : `event_${String(i).padStart(2, "0")}`,
);
const PLANS = ["free", "pro", "team", "enterprise"];

/** Mulberry32: small, fast, and the same sequence everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface StreamShape {
  /** Events in the whole stream. */
  total: number;
  /** First and last timestamp (epoch ms) of the stream. */
  startMs: number;
  endMs: number;
}

/** A stream of `total` events spread evenly over [startMs, endMs). */
export function streamShape(total: number, nowMs: number, days = 30): StreamShape {
  return { total, startMs: nowMs - days * 86_400_000, endMs: nowMs - 60_000 };
}

/** Events `from` … `from + count - 1` of the stream, as a caller would track them. */
export function eventBatch(shape: StreamShape, from: number, count: number, seed = 1): TrackEventInput[] {
  const random = prng(seed * 1_000_003 + from);
  const step = (shape.endMs - shape.startMs) / shape.total;
  const out: TrackEventInput[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const n = from + i;
    const jitter = Math.floor((random() - 0.5) * 60_000);
    const ts = Math.min(shape.endMs, Math.max(shape.startMs, Math.floor(shape.startMs + n * step) + jitter));
    const name = EVENT_NAMES[Math.floor(random() * EVENT_NAMES.length)]!;
    const properties: Record<string, unknown> = {
      plan: PLANS[Math.floor(random() * PLANS.length)],
      path: `/app/${Math.floor(random() * 500)}`,
      session: Math.floor(random() * 1e9).toString(36),
    };
    if (name === "purchase") {
      properties.revenue = Math.round(random() * 20_000) / 100;
      properties.currency = "EUR";
    }
    out[i] = {
      event: name,
      userId: `user_${Math.floor(random() * USERS)}`,
      timestamp: new Date(ts).toISOString(),
      properties,
    };
  }
  return out;
}
