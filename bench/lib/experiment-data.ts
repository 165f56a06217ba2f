import { prng } from "./event-data.js";
import { uuidv7 } from "./uuidv7.js";

/**
 * The experiment benchmark's events, generated user by user in big batches of rows (the shape
 * flagpost stores: id, event, user_id, ts, received_at, properties as JSON text), so a million
 * events never sit in memory at once and reach the database through the driver in bulk.
 *
 * Each user gets `perUser` events: one `$exposure` (as the exposure recorder writes it, with
 * experimentId and variant), then other events around it: a `purchase` after exposure with the
 * variant's conversion probability (revenue 5–200), now and then a purchase before exposure
 * (which must not count), and page events to fill the table as a real one is filled.
 */

export const EXPERIMENT = "checkout-redesign";
export const VARIANTS = [
  { key: "control", weight: 50 },
  { key: "green", weight: 25 },
  { key: "blue", weight: 25 },
];
const CONVERSION: Record<string, number> = { control: 0.1, green: 0.115, blue: 0.095 };
const OTHER_EVENTS = Array.from({ length: 20 }, (_, i) => `page_${String(i).padStart(2, "0")}`);
const DAY = 86_400_000;

/** [id, event, user_id, ts, received_at, properties] */
export type EventRow = [string, string, string, number, number, string];

export const userId = (n: number) => `user-${String(n).padStart(6, "0")}`;

/** Rows for users `from` … `from + count - 1`; `variantOf(userId)` is the flag's own assignment. */
export function experimentRows(
  from: number,
  count: number,
  perUser: number,
  variantOf: (userId: string) => string,
  nowMs: number,
): EventRow[] {
  const random = prng(from * 7919 + 11);
  const start = nowMs - 30 * DAY;
  const rows: EventRow[] = [];
  for (let n = from; n < from + count; n++) {
    const user = userId(n);
    const variant = variantOf(user);
    const exposedAt = start + Math.floor(random() * 20 * DAY);
    const received = exposedAt + 1000;
    const exposure = { flagKey: EXPERIMENT, enabled: true, reason: "no_rules", experimentId: EXPERIMENT, variant };
    rows.push([uuidv7(received), "$exposure", user, exposedAt, received, JSON.stringify(exposure)]);
    for (let i = 1; i < perUser; i++) {
      let event = OTHER_EVENTS[Math.floor(random() * OTHER_EVENTS.length)]!;
      let ts = exposedAt + Math.floor((random() - 0.2) * 10 * DAY);
      let properties: Record<string, unknown> = { path: `/shop/${Math.floor(random() * 300)}` };
      const buys = i === 1 ? random() < CONVERSION[variant]! : random() < 0.003;
      if (buys) {
        event = "purchase";
        if (i === 1) ts = exposedAt + Math.floor(random() * 5 * DAY);
        properties = { revenue: Math.round(500 + random() * 19_500) / 100, currency: "EUR" };
      }
      rows.push([uuidv7(ts + 1000), event, user, ts, ts + 1000, JSON.stringify(properties)]);
    }
  }
  return rows;
}
