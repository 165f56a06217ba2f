import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { allVerified, type Receiver, startReceiver } from "./support/receiver.js";

/**
 * Deliveries end to end on every backend: a real receiver on 127.0.0.1 (so private networks are
 * allowed here, explicitly), the real clock, every delivery checked by the resend SDK and by
 * standardwebhooks on arrival.
 */

const FLAG_EVENTS = ["flag.created", "flag.updated", "flag.deleted"] as const;

/** Polls `read` until `done` holds (bounded: 10 s in steps of 20 ms). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await read();
    if (done(value)) return value;
    await delay(20);
  }
  throw new Error("condition not reached within 10 s");
}

describeEachStorage("webhook deliveries", (storage: () => Storage) => {
  let receiver: Receiver;
  let fp: Flagpost;

  beforeEach(async () => {
    receiver = await startReceiver();
    fp = createFlagpost({
      storage: storage(),
      logger: silentLogger,
      webhooks: { allowPrivateNetworks: true, retrySchedule: "50ms,50ms,50ms", retryJitter: 0, pollIntervalMs: 100 },
    });
    await fp.ready();
  });
  afterEach(async () => {
    await fp.close();
    await receiver.close();
  });

  async function endpoint(path = "/hook", events: string[] = [...FLAG_EVENTS]) {
    const created = await fp.webhooks.create({ endpoint: `${receiver.url}${path}`, events: events as never });
    receiver.secrets = [created.signing_secret];
    return created;
  }

  it("POSTs each flag change as {type, created_at, data}, signed, flag.updated with changes and actor", async () => {
    const hook = await endpoint();
    expect(hook.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const created = await fp.flags.create({ key: "checkout", description: "new checkout" });
    const updated = await fp.flags.update("checkout", { enabled: true });
    await fp.flags.delete("checkout");
    const received = await receiver.waitFor(3);
    expect(allVerified(received)).toBe(true);
    const byType = new Map(received.map((d) => [d.payload.type, d]));
    // The payload shows the flag as the HTTP API does: times in ISO 8601.
    const wire = (flag: typeof created) => ({
      ...flag,
      createdAt: new Date(flag.createdAt).toISOString(),
      updatedAt: new Date(flag.updatedAt).toISOString(),
    });
    expect(byType.get("flag.created")!.payload).toEqual({
      type: "flag.created",
      created_at: wire(created).createdAt,
      data: wire(created),
    });
    expect(byType.get("flag.updated")!.payload.data).toEqual({
      ...wire(updated),
      changes: [{ path: "enabled", before: false, after: true }],
      actor: { type: "in_process" },
    });
    const [history] = (await fp.flags.history("checkout")).data.filter((h) => h.action === "updated");
    expect(byType.get("flag.updated")!.payload.data).toMatchObject({
      changes: history!.changes,
      actor: history!.actor,
    });
    expect(byType.get("flag.deleted")!.payload.data).toEqual(wire(updated));
    // webhook-id is the event's id, as listed for the endpoint.
    const events = await fp.webhooks.events(hook.id);
    expect(new Set(events.data.map((e) => e.id))).toEqual(new Set(received.map((d) => d.id)));
    await until(
      () => fp.webhooks.events(hook.id),
      (page) => page.data.every((e) => e.status === "success"),
    );
  });

  it("retries failures with the same webhook-id until a 2xx, and lists every attempt", async () => {
    const hook = await endpoint();
    receiver.answer = (_d, nth) => (nth <= 2 ? { status: 503, body: `busy ${nth}` } : { status: 204 });
    await fp.flags.create({ key: "retry-me" });
    const received = await receiver.waitFor(3);
    expect(new Set(received.map((d) => d.id)).size).toBe(1);
    expect(allVerified(received)).toBe(true);
    const eventId = received[0]!.id;
    const event = await until(
      () => fp.webhooks.event(hook.id, eventId),
      (e) => e.status === "success",
    );
    expect(event).toMatchObject({ object: "webhook_event", id: eventId, type: "flag.created", next_attempt_at: null });
    const attempts = await fp.webhooks.attempts(hook.id, eventId);
    expect(attempts.data.map((a) => [a.http_status_code, a.response])).toEqual([
      [204, ""],
      [503, "busy 2"],
      [503, "busy 1"],
    ]);
    expect(attempts.data.every((a) => a.duration_ms >= 0 && !Number.isNaN(Date.parse(a.sent_at)))).toBe(true);
    const page = await fp.webhooks.attempts(hook.id, eventId, { limit: 1, after: attempts.data[0]!.id });
    expect(page).toMatchObject({ object: "list", has_more: true, data: [{ http_status_code: 503 }] });
  });

  it("gives up after the schedule runs out: the event is failed, every attempt kept", async () => {
    const hook = await endpoint();
    receiver.answer = () => ({ status: 500, body: "x".repeat(5000) });
    await fp.flags.create({ key: "never" });
    const [first] = await receiver.waitFor(1);
    const event = await until(
      () => fp.webhooks.event(hook.id, first!.id),
      (e) => e.status === "failed",
    );
    expect(event.next_attempt_at).toBeNull();
    const attempts = await fp.webhooks.attempts(hook.id, first!.id);
    expect(attempts.data).toHaveLength(4); // the first attempt and three retries
    expect(attempts.data[0]!.response).toBe("x".repeat(1024)); // the first 1 KiB of the answer
    expect((await fp.webhooks.get(hook.id)).status).toBe("enabled"); // failing for less than 5 days
  });

  it("replays an event with its original webhook-id, signed again", async () => {
    const hook = await endpoint();
    await fp.flags.create({ key: "replayed" });
    const [first] = await receiver.waitFor(1);
    await until(
      () => fp.webhooks.event(hook.id, first!.id),
      (e) => e.status === "success",
    );
    expect(await fp.webhooks.replay(hook.id, first!.id)).toEqual({ object: "webhook_event", id: first!.id });
    const received = await receiver.waitFor(2);
    expect(received[1]!.id).toBe(first!.id);
    expect(received[1]!.body).toBe(first!.body);
    expect(allVerified(received)).toBe(true);
  });

  it("signs with both secrets for a day after a rotation; each verifies on its own", async () => {
    const hook = await endpoint();
    const rotated = await fp.webhooks.rotateSecret(hook.id);
    expect(rotated.signing_secret).not.toBe(hook.signing_secret);
    expect((await fp.webhooks.get(hook.id)).signing_secret).toBe(rotated.signing_secret);
    receiver.secrets = [rotated.signing_secret, hook.signing_secret];
    await fp.flags.create({ key: "rotated" });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.signature.split(" ")).toHaveLength(2);
    expect(delivery!.signature.split(" ").every((s) => s.startsWith("v1,"))).toBe(true);
    expect(allVerified([delivery!], 0)).toBe(true);
    expect(allVerified([delivery!], 1)).toBe(true);
  });

  it("sends nothing to a disabled endpoint, and fails what was pending when it was disabled", async () => {
    const off = await endpoint("/off");
    const on = await fp.webhooks.create({ endpoint: `${receiver.url}/on`, events: ["flag.created"] });
    await fp.webhooks.update(off.id, { status: "disabled" });
    await fp.flags.create({ key: "only-on" });
    await receiver.waitFor(1);
    await fp.webhooks.worker.stop();
    await fp.webhooks.update(off.id, { status: "enabled" });
    await fp.flags.create({ key: "stored-then-disabled" });
    await fp.webhooks.update(off.id, { status: "disabled" });
    await fp.webhooks.update(on.id, { status: "disabled" });
    expect(await fp.webhooks.worker.runOnce()).toBe(2);
    await delay(100);
    expect(receiver.received.map((d) => d.path)).toEqual(["/on"]);
    const [pending] = (await fp.webhooks.events(off.id)).data;
    expect(pending).toMatchObject({ type: "flag.created", status: "failed" });
    expect((await fp.webhooks.attempts(off.id, pending!.id)).data).toEqual([]);
  });
});
