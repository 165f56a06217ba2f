import { Resend } from "resend";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { allVerified, type Receiver, startReceiver } from "./support/receiver.js";

/**
 * The webhook routes through the official resend SDK (`resend.webhooks.*`), unchanged, over real
 * HTTP on every backend; the deliveries they cause reach a real receiver and verify.
 */

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("condition not reached within 10 s");
}

describeEachStorage("webhook routes through the resend SDK", (storage: () => Storage) => {
  let app: TestApp;
  let receiver: Receiver;
  let resend: Resend;

  beforeEach(async () => {
    receiver = await startReceiver();
    app = await startApp({ storage: storage(), webhooks: { allowPrivateNetworks: true, pollIntervalMs: 100 } });
    resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
  });
  afterEach(async () => {
    await app.close();
    await receiver.close();
  });

  it("creates, gets, lists, updates, rotates and removes endpoints", async () => {
    const created = await resend.webhooks.create({ endpoint: `${receiver.url}/a`, events: ["email.sent"] });
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ object: "webhook", id: expect.any(String), signing_secret: expect.any(String) });
    const id = created.data!.id;
    const got = await resend.webhooks.get(id);
    expect(got.data).toEqual({
      object: "webhook",
      id,
      endpoint: `${receiver.url}/a`,
      events: ["email.sent"],
      status: "enabled",
      created_at: expect.any(String),
      signing_secret: created.data!.signing_secret,
    });
    const others = [];
    for (const path of ["b", "c"])
      others.push(
        (await resend.webhooks.create({ endpoint: `${receiver.url}/${path}`, events: ["flag.created" as never] })).data!
          .id,
      );
    const all = await resend.webhooks.list();
    expect(all.data).toMatchObject({ object: "list", has_more: false });
    expect(all.data!.data.map((w) => w.id)).toEqual([others[1], others[0], id]);
    const first = await resend.webhooks.list({ limit: 2 });
    expect(first.data).toMatchObject({ has_more: true, data: [{ id: others[1] }, { id: others[0] }] });
    const next = await resend.webhooks.list({ limit: 2, after: others[0]! });
    expect(next.data).toMatchObject({ has_more: false, data: [{ id }] });
    const back = await resend.webhooks.list({ limit: 1, before: id });
    expect(back.data).toMatchObject({ has_more: true, data: [{ id: others[0] }] });

    const updated = await resend.webhooks.update(id, { events: ["email.bounced", "email.sent"], status: "disabled" });
    expect(updated.data).toEqual({ object: "webhook", id });
    expect((await resend.webhooks.get(id)).data).toMatchObject({
      status: "disabled",
      events: ["email.bounced", "email.sent"],
    });
    const rotated = await resend.webhooks.rotateSigningSecret(id);
    expect(rotated.data).toEqual({ object: "webhook", id, signing_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.data!.signing_secret).not.toBe(created.data!.signing_secret);
    expect(await resend.webhooks.remove(id)).toMatchObject({ data: { object: "webhook", id, deleted: true } });
    expect((await resend.webhooks.get(id)).error).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("refuses unknown event types, bad endpoints and bad cursors with Resend's 422", async () => {
    const unknown = await resend.webhooks.create({ endpoint: `${receiver.url}/a`, events: ["email.opened"] });
    expect(unknown.error).toMatchObject({ statusCode: 422, name: "validation_error" });
    expect(unknown.error!.message).toContain("events.0");
    const empty = await resend.webhooks.create({ endpoint: `${receiver.url}/a`, events: [] });
    expect(empty.error).toMatchObject({ statusCode: 422 });
    const scheme = await resend.webhooks.create({ endpoint: "ftp://example.com/x", events: ["email.sent"] });
    expect(scheme.error).toMatchObject({ statusCode: 422, name: "validation_error" });
    const both = await app.call("GET", "/v1/webhooks?after=a&before=b");
    expect(both.status).toBe(422);
    expect(await both.json()).toMatchObject({ statusCode: 422, name: "validation_error" });
    const limit = await app.call("GET", "/v1/webhooks?limit=101");
    expect(limit.status).toBe(422);
    const extra = await app.call("POST", "/v1/webhooks", {
      endpoint: `${receiver.url}/a`,
      events: ["email.sent"],
      x: 1,
    });
    expect(extra.status).toBe(422);
    expect((await app.call("GET", "/v1/webhooks/nope/events")).status).toBe(404);
    expect(await (await app.call("GET", "/v1/webhooks/nope/unknown")).json()).toMatchObject({ statusCode: 404 });
  });

  it("lists events and attempts, gets and replays an event, all through the SDK", async () => {
    const hook = (await resend.webhooks.create({ endpoint: `${receiver.url}/h`, events: ["flag.created" as never] }))
      .data!;
    receiver.secrets = [hook.signing_secret];
    receiver.answer = (_d, nth) => (nth === 1 ? { status: 500, body: "first fails" } : { status: 200, body: "ok" });
    await app.fp.flags.create({ key: "over-http" });
    const [delivery] = await receiver.waitFor(1);
    const eventId = delivery!.id;
    await waitUntil(async () => (await app.fp.webhooks.event(hook.id, eventId)).status === "attempting");
    await app.fp.webhooks.replay(hook.id, eventId); // the retry, now rather than in 5 s
    await waitUntil(
      async () => (await resend.webhooks.events.get({ webhookId: hook.id, eventId })).data?.status === "success",
    );

    const events = await resend.webhooks.events.list({ webhookId: hook.id });
    expect(events.data).toEqual({
      object: "list",
      has_more: false,
      data: [{ id: eventId, type: "flag.created", created_at: expect.any(String), status: "success" }],
    });
    const event = await resend.webhooks.events.get({ webhookId: hook.id, eventId });
    expect(event.data).toMatchObject({ object: "webhook_event", id: eventId, next_attempt_at: null });
    expect(event.data!.payload).toEqual(JSON.parse(delivery!.body));
    const attempts = await resend.webhooks.events.attempts.list({ webhookId: hook.id, eventId });
    expect(attempts.data!.data.map((a) => [a.http_status_code, a.response])).toEqual([
      [200, "ok"],
      [500, "first fails"],
    ]);
    const replayed = await resend.webhooks.events.replay({ webhookId: hook.id, eventId });
    expect(replayed.data).toEqual({ object: "webhook_event", id: eventId });
    const all = await receiver.waitFor(3);
    expect(new Set(all.map((d) => d.id))).toEqual(new Set([eventId]));
    expect(allVerified(all)).toBe(true);
    const missing = await resend.webhooks.events.get({
      webhookId: hook.id,
      eventId: "0198aaaa-0000-7000-8000-000000000000",
    });
    expect(missing.error).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("flag.updated over HTTP names the API key as the actor, as the flag history does", async () => {
    const hook = (await resend.webhooks.create({ endpoint: `${receiver.url}/f`, events: ["flag.updated" as never] }))
      .data!;
    receiver.secrets = [hook.signing_secret];
    await app.fp.flags.create({ key: "by-key" });
    expect((await app.call("PATCH", "/v1/flags/by-key", { description: "changed" })).status).toBe(200);
    const [delivery] = await receiver.waitFor(1);
    const [entry] = (await app.fp.flags.history("by-key")).data;
    expect(delivery!.payload.data).toMatchObject({ changes: entry!.changes, actor: entry!.actor });
    expect(entry!.actor).toMatchObject({ type: "api_key", name: "test" });
    expect(allVerified([delivery!])).toBe(true);
  });
});
