import { describe, expect, it } from "vitest";
import type { EmailStatus, EmailEventType } from "../../../src/ports/storage/emails.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import type { StorageHarness } from "../harness.js";
import { email, T0 } from "./email-fixtures.js";
import { event } from "./event-fixtures.js";
import { useStorage } from "./use-storage.js";
import { webhook } from "./webhook-fixtures.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Moves a stored email from `from` to `to`, recording `type` at `at` (and `sentAt` when given). */
async function move(
  storage: Storage,
  id: string,
  from: EmailStatus,
  to: EmailStatus,
  type: EmailEventType,
  at: number,
  sentAt?: number,
) {
  const stored = await storage.emails.transitionEmail(id, {
    from: [from],
    to,
    ...(sentAt === undefined ? {} : { sentAt }),
    event: { type, at },
  });
  expect(stored, `${id}: ${from} → ${to}`).toBeDefined();
}

/** The overview's counts (GET /v1/overview): per epoch-aligned bucket, half-open windows, exact on every backend. */
export function activityCases(harness: StorageHarness): void {
  describe("activity counts", () => {
    const storage = useStorage(harness);

    it("counts sends by sentAt and bounce and complaint events per hour, only inside [from, to)", async () => {
      const s = storage();
      const emails = Array.from({ length: 7 }, (_, n) => email(n + 1));
      await s.emails.insertEmails(emails);
      const [before, a, b, c, d, atEnd, neverSent] = emails.map((e) => e.id);
      // 08:59:59.999: just before the window.
      await move(s, before!, "queued", "sent", "sent", T0 - 2 * HOUR - 1, T0 - 2 * HOUR - 1);
      // 09:00 sharp: the first bucket's first millisecond; complained at 10:40.
      await move(s, a!, "queued", "sent", "sent", T0 - HOUR, T0 - HOUR);
      await move(s, a!, "sent", "complained", "complained", T0 + 40 * MINUTE);
      // 10:05, delivered straight from the queue (a transport that reports delivery): a send too.
      await move(s, b!, "queued", "delivered", "delivered", T0 + 5 * MINUTE, T0 + 5 * MINUTE);
      // 10:10; one recipient's bounce at 10:20 (the email stays sent), the last one's at 11:15.
      await move(s, c!, "queued", "sent", "sent", T0 + 10 * MINUTE, T0 + 10 * MINUTE);
      await move(s, c!, "sent", "sent", "bounced", T0 + 20 * MINUTE);
      await move(s, c!, "sent", "bounced", "bounced", T0 + 75 * MINUTE);
      // 11:59:59.999: the last millisecond of the last bucket; delayed events count as nothing.
      await move(s, d!, "queued", "queued", "delivery_delayed", T0 + 30 * MINUTE);
      await move(s, d!, "queued", "sent", "sent", T0 + 2 * HOUR - 1, T0 + 2 * HOUR - 1);
      // 12:00 sharp: the window's end, outside it.
      await move(s, atEnd!, "queued", "sent", "sent", T0 + 2 * HOUR, T0 + 2 * HOUR);
      expect(neverSent).toBeDefined();

      const buckets = await s.activity.countEmailActivity(T0 - HOUR, T0 + 2 * HOUR, HOUR);
      expect(buckets).toEqual([
        { start: T0 - HOUR, sent: 1, bounced: 0, complained: 0 },
        { start: T0, sent: 2, bounced: 1, complained: 1 },
        { start: T0 + HOUR, sent: 1, bounced: 1, complained: 0 },
      ]);
      expect(await s.activity.countEmailActivity(T0 + 3 * HOUR, T0 + 4 * HOUR, HOUR)).toEqual([]);
      // Another bucket size over the same rows: quarter hours.
      const quarters = await s.activity.countEmailActivity(T0, T0 + HOUR, 15 * MINUTE);
      expect(quarters).toEqual([
        { start: T0, sent: 2, bounced: 0, complained: 0 },
        { start: T0 + 15 * MINUTE, sent: 0, bounced: 1, complained: 0 },
        { start: T0 + 30 * MINUTE, sent: 0, bounced: 0, complained: 1 },
      ]);
    });

    it("counts events per minute by their timestamp, only inside [from, to)", async () => {
      const s = storage();
      const at = (n: number, ms: number) => event(n, { timestamp: ms, receivedAt: T0 + 10 * MINUTE });
      await s.events.appendEvents([
        at(1, T0 - 1), // before the window
        at(2, T0), // the first minute's first millisecond
        at(3, T0 + 59_999),
        at(4, T0 + 59_999),
        at(5, T0 + 2 * MINUTE + 30_000), // minute 2; minute 1 has none
        at(6, T0 + 3 * MINUTE - 1),
        at(7, T0 + 3 * MINUTE), // the window's end, outside it
      ]);
      expect(await s.activity.countEvents(T0, T0 + 3 * MINUTE, MINUTE)).toEqual([
        { start: T0, count: 3 },
        { start: T0 + 2 * MINUTE, count: 2 },
      ]);
      expect(await s.activity.countEvents(T0 - HOUR, T0 + HOUR, HOUR)).toEqual([
        { start: T0 - HOUR, count: 1 },
        { start: T0, count: 6 },
      ]);
    });

    it("lists the failing endpoints, enabled or disabled, longest failing first, up to the limit", async () => {
      const s = storage();
      const healthy = webhook();
      const recent = webhook({ failingSince: T0 + 5 * MINUTE });
      const oldest = webhook({ status: "disabled", failingSince: T0 - HOUR, endpoint: "https://b.example/x" });
      const tieLow = webhook({ failingSince: T0 });
      const tieHigh = webhook({ failingSince: T0 });
      for (const w of [healthy, recent, oldest, tieHigh, tieLow]) await s.webhooks.insertWebhook(w);
      const failing = await s.activity.listFailingWebhooks(10);
      expect(failing).toEqual([
        { id: oldest.id, endpoint: "https://b.example/x", status: "disabled", failingSince: T0 - HOUR },
        { id: tieLow.id, endpoint: tieLow.endpoint, status: "enabled", failingSince: T0 },
        { id: tieHigh.id, endpoint: tieHigh.endpoint, status: "enabled", failingSince: T0 },
        { id: recent.id, endpoint: recent.endpoint, status: "enabled", failingSince: T0 + 5 * MINUTE },
      ]);
      expect((await s.activity.listFailingWebhooks(2)).map((w) => w.id)).toEqual([oldest.id, tieLow.id]);
      // Enabling an endpoint ends its failing run (webhooks.ts): it leaves the list.
      await s.webhooks.updateWebhook(oldest.id, { status: "enabled", updatedAt: T0 + HOUR });
      expect((await s.activity.listFailingWebhooks(10)).map((w) => w.id)).toEqual([tieLow.id, tieHigh.id, recent.id]);
    });
  });
}
