import nodemailer from "nodemailer";
import { expect } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { startReceiver, type Receiver } from "../webhooks/support/receiver.js";
import { type FakeClock, fakeClock } from "./fake-clock.js";
import { startApp, type TestApp } from "./servers.js";
import { type SmtpSink, startSmtpSink } from "./smtp-sink.js";

/**
 * Real data for the overview (GET /v1/overview and the dashboard's Overview page), made through
 * the API on a fake clock: emails sent through the outbox worker and nodemailer to a real SMTP
 * server on 127.0.0.1 at 08:20 and 10:05 (one made at 09:55), a bounce report at 09:10 and a complaint at 10:01 (by
 * hand, with `occurred_at`), one email left due since 10:05 and one scheduled for tomorrow,
 * events tracked at chosen times, and an endpoint whose receiver answers 500 to its first delivery.
 * The clock stops at 2026-06-01T10:30:00Z: the window of hours is 2026-05-31T11:00 … 10:00, the
 * window of minutes 09:31 … 10:30.
 */

export const NOW = Date.parse("2026-06-01T10:30:00.000Z");
const at = (time: string) => Date.parse(`2026-06-01T${time}Z`);

/** What the overview must show for the scenario. */
export const EXPECTED = {
  outbox: { due: 1, scheduled: 1, oldestDueAgeSeconds: 25 * 60 },
  /** Non-empty hours: index in the 24 (0 = 2026-05-31T11:00) → counts. */
  hours: {
    21: { hour: "2026-06-01T08:00:00.000Z", sent: 2, bounced: 0, complained: 0 },
    22: { hour: "2026-06-01T09:00:00.000Z", sent: 0, bounced: 1, complained: 0 },
    23: { hour: "2026-06-01T10:00:00.000Z", sent: 1, bounced: 0, complained: 1 },
  },
  totals: { sent: 3, bounced: 1, complained: 1 },
  /** Non-empty minutes: index in the 60 (0 = 09:31) → events. */
  minutes: { 0: 1, 56: 1, 58: 3 },
  events: 5,
};

export interface OverviewScenario {
  app: TestApp;
  clock: FakeClock;
  /** The endpoint that is failing, and its URL. */
  failing: { id: string; endpoint: string };
  close(): Promise<void>;
}

export async function overviewScenario(storage: Storage): Promise<OverviewScenario> {
  const clock = fakeClock(at("08:20:00.000"));
  const [sink, receiver]: [SmtpSink, Receiver] = await Promise.all([startSmtpSink(), startReceiver()]);
  receiver.answer = () => ({ status: 500, body: "down for maintenance" });
  const transport = nodemailerTransport(
    nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ignoreTLS: true }),
    { closeTransporter: true },
  );
  const app = await startApp({
    storage,
    clock,
    transport,
    emailWorker: { autoStart: false },
    webhooks: { autoStart: false, allowPrivateNetworks: true },
    http: { rateLimit: false },
  });
  const ok = async (response: Promise<Response>, status = 200) => {
    const answer = await response;
    expect(answer.status, await answer.clone().text()).toBe(status);
    return (await answer.json()) as { id: string };
  };
  const send = (to: string, extra: Record<string, unknown> = {}) =>
    ok(
      app.call("POST", "/v1/emails", {
        from: "Shop <shop@example.com>",
        to,
        subject: `For ${to}`,
        text: "Hi",
        ...extra,
      }),
    );
  /** Sends what is due through the worker and waits for the SMTP server to have it. */
  const deliver = async (count: number) => {
    const before = sink.received.length;
    expect(await app.fp.emails.worker!.runOnce()).toBe(count);
    await sink.waitFor(before + count);
  };

  const hook = await ok(
    app.call("POST", "/v1/webhooks", { endpoint: `${receiver.url}/hook`, events: ["email.bounced"] }),
    201,
  );
  const ann = await send("ann@example.org");
  const bob = await send("bob@example.org");
  await deliver(2); // 08:20
  const report = (id: string, type: string, time: string) =>
    ok(app.call("POST", `/v1/emails/${id}/events`, { type, occurred_at: `2026-06-01T${time}Z` }));
  await report(bob.id, "bounced", "09:10:00");
  clock.set(at("09:55:00.000"));
  await send("cai@example.org"); // created at 09:55, sent at 10:05: counted by its send
  clock.set(at("10:05:00.000"));
  await deliver(1);
  await report(ann.id, "complained", "10:01:00");
  // The bounce's delivery fails: the endpoint is failing from 10:05 on.
  expect(await app.fp.webhooks.worker.runOnce()).toBe(1);
  await receiver.waitFor(1);
  await send("dee@example.org"); // due at 10:05, never sent
  await send("eve@example.org", { scheduled_at: "2026-06-02T09:00:00.000Z" });

  clock.set(NOW);
  const event = (time: string, n: number) => ({
    event: "page_view",
    userId: `u${n}`,
    timestamp: `2026-06-01T${time}Z`,
  });
  const events = [
    event("09:30:59.999", 1), // the minute before the window
    event("09:31:00.000", 2), // the window's first minute
    event("10:27:30.000", 3),
    event("10:29:00.000", 4),
    event("10:29:10.000", 5),
    event("10:29:59.999", 6),
    event("10:31:00.000", 7), // after the current minute
  ];
  await ok(app.call("POST", "/v1/events/batch", { events }), 202);
  return {
    app,
    clock,
    failing: { id: hook.id, endpoint: `${receiver.url}/hook` },
    close: async () => {
      await app.close();
      await Promise.all([sink.close(), receiver.close()]);
    },
  };
}
