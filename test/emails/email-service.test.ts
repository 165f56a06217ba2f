import { beforeEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { SendEmailRequest } from "../../src/emails/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { type FakeClock, fakeClock } from "../support/fake-clock.js";
import { describeEachStorage } from "../support/storage-backends.js";

const base: SendEmailRequest = {
  from: "Flagpost <hello@example.com>",
  to: "ann@example.org",
  subject: "Hi",
  text: "Hello",
};

async function refusal(promise: Promise<unknown>): Promise<FlagpostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof FlagpostError)) throw new Error(`expected a FlagpostError, got ${String(error)}`);
  return error;
}

describe("send request validation", () => {
  const clock = fakeClock();
  const fp = createFlagpost({ storage: memoryStorage(), clock, logger: silentLogger });
  const message = async (request: unknown) => (await refusal(fp.emails.send(request as SendEmailRequest))).message;

  it.each([
    [{ ...base, to: [] }, '"to" must hold 1 to 50 addresses'],
    [{ ...base, to: Array.from({ length: 51 }, (_, i) => `u${i}@example.org`) }, '"to" must hold 1 to 50 addresses'],
    [
      {
        ...base,
        to: Array.from({ length: 30 }, (_, i) => `u${i}@example.org`),
        bcc: Array.from({ length: 21 }, (_, i) => `b${i}@example.org`),
      },
      '"to" together with "cc" and "bcc" must hold at most 50 addresses (got 51)',
    ],
    [
      { ...base, to: ["ann@example.org", "not an address"] },
      '"to.1" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"',
    ],
    [
      { ...base, from: "nobody" },
      '"from" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"',
    ],
    [{ ...base, to: undefined }, '"to" is required'],
    [{ ...base, subject: "" }, '"subject" must not be empty'],
    [{ ...base, subject: "a\r\nBcc: x@example.org" }, '"subject" must not contain line breaks'],
    [{ ...base, text: undefined }, '"html" is required when "text" is missing (give html, text or both)'],
    [{ ...base, template: { id: "t" } }, '"template" is not a known field'],
    [{ ...base, topic_id: "t1" }, '"topic_id" is not a known field'],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "aGk=", path: "https://x" }] },
      '"attachments.0.path" is not a known field',
    ],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "not base64!" }] },
      '"attachments.0.content" must be base64 (A-Z a-z 0-9 + /, padded with =)',
    ],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "aGk-aGk_" }] },
      '"attachments.0.content" must be base64 (A-Z a-z 0-9 + /, padded with =)',
    ],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "\u0141Gk=" }] },
      '"attachments.0.content" must be base64 (A-Z a-z 0-9 + /, padded with =)',
    ],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "aG==aGk=" }] },
      '"attachments.0.content" must be base64 (A-Z a-z 0-9 + /, padded with =)',
    ],
    [
      { ...base, attachments: [{ filename: "a.txt", content: "aGk=aG k" }] },
      '"attachments.0.content" must be base64 (A-Z a-z 0-9 + /, padded with =)',
    ],
    [
      { ...base, attachments: [{ filename: "../etc/passwd", content: "aGk=" }] },
      '"attachments.0.filename" must be a file name without slashes or control characters',
    ],
    [
      { ...base, headers: { "Message-ID": "<x@y>" } },
      '"headers.Message-ID" is set by flagpost from the request\'s own fields and cannot be given as a header',
    ],
    [
      { ...base, headers: { "X-Ok": "a\nInjected: b" } },
      '"headers.X-Ok" must not contain line breaks or control characters',
    ],
    [
      { ...base, headers: { "Bad Name": "x" } },
      '"headers.Bad Name" is not a valid header name (printable ASCII without spaces or colons, at most 76 characters)',
    ],
    [
      { ...base, tags: [{ name: "has space", value: "x" }] },
      '"tags.0.name" must be 1 to 256 characters of A-Z a-z 0-9 _ -',
    ],
    [
      { ...base, scheduled_at: "in 1 hour" },
      '"scheduled_at" must be an ISO 8601 date-time with a time zone, such as "2026-05-01T09:00:00Z"',
    ],
    [
      { ...base, scheduled_at: "2026-06-01T10:00:00" },
      '"scheduled_at" must be an ISO 8601 date-time with a time zone, such as "2026-05-01T09:00:00Z"',
    ],
    [{ ...base, scheduled_at: "2026-06-01T09:59:59Z" }, '"scheduled_at" must be in the future'],
    [{ ...base, scheduled_at: "2026-07-02T10:00:00Z" }, '"scheduled_at" must be at most 30 days ahead'],
    [[base], "body must be an object (got an array)"],
  ])("refuses %j: %s", async (request, expected) => {
    expect(await message(request)).toBe(expected);
  });

  it("names every problem in details, and counts the rest in the message", async () => {
    const error = await refusal(
      fp.emails.send({ from: "x", to: [], subject: "", text: "t", color: "red" } as unknown as SendEmailRequest),
    );
    expect(error.code).toBe("validation_error");
    expect(error.details?.map((d) => d.path).sort()).toEqual(["color", "from", "subject", "to"]);
    expect(error.message).toMatch(/\(and 3 more problems\)$/);
  });

  it("accepts null for optional fields, a single address as a string, and html without text", async () => {
    const sent = await fp.emails.send({
      ...base,
      text: null,
      html: "<p>x</p>",
      cc: null,
      bcc: null,
      reply_to: null,
      headers: null,
      tags: null,
      attachments: null,
      scheduled_at: null,
    });
    const view = await fp.emails.get(sent.id);
    expect(view).toEqual({
      object: "email",
      id: sent.id,
      from: "Flagpost <hello@example.com>",
      to: ["ann@example.org"],
      subject: "Hi",
      status: "queued",
      created_at: new Date(clock.now()).toISOString(),
      html: "<p>x</p>",
      last_event: "queued",
      message_id: `<${sent.id}@example.com>`,
    });
  });
});

describeEachStorage("EmailService", (storage: () => Storage) => {
  let clock: FakeClock;
  let fp: Flagpost;
  beforeEach(async () => {
    clock = fakeClock();
    fp = createFlagpost({ storage: storage(), clock, logger: silentLogger }); // no transport: emails wait in the outbox
    await fp.ready();
  });

  it("stores the email before answering, with its queued event", async () => {
    const sent = await fp.emails.send({
      ...base,
      cc: ["Carol <carol@example.org>"],
      reply_to: "r@example.org",
      tags: [{ name: "k", value: "v" }],
    });
    expect(sent).toEqual({
      id: sent.id,
      from: base.from,
      to: ["ann@example.org"],
      subject: "Hi",
      status: "queued",
      created_at: new Date(clock.now()).toISOString(),
    });
    expect(sent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const stored = await fp.storage.emails.getEmail(sent.id);
    expect(stored).toMatchObject({
      status: "queued",
      attempts: 0,
      nextAttemptAt: Date.parse(sent.created_at),
      content: { cc: ["Carol <carol@example.org>"], replyTo: ["r@example.org"] },
    });
    expect(await fp.emails.events(sent.id)).toEqual([{ type: "queued", occurred_at: sent.created_at }]);
    expect(fp.emails.worker).toBeUndefined();
  });

  it("answers not_found for an unknown email", async () => {
    expect((await refusal(fp.emails.get("0197ffff-0000-7000-8000-000000000000"))).code).toBe("not_found");
    expect((await refusal(fp.emails.events("nope"))).code).toBe("not_found");
    expect((await refusal(fp.emails.recordEvent("nope", { type: "delivered" }))).code).toBe("not_found");
  });

  describe("Idempotency-Key", () => {
    it("answers the same key and body with the first response and stores nothing new", async () => {
      const first = await fp.emails.send(base, { idempotencyKey: "k1" });
      clock.advance(1000);
      const again = await fp.emails.send({ ...base }, { idempotencyKey: "k1" });
      expect(again).toEqual(first);
      const other = await fp.emails.send(base, { idempotencyKey: "k1", idempotencyScope: "another api key" });
      expect(other.id).not.toBe(first.id);
    });

    it("refuses the same key with another body", async () => {
      await fp.emails.send(base, { idempotencyKey: "k2" });
      const error = await refusal(fp.emails.send({ ...base, subject: "Other" }, { idempotencyKey: "k2" }));
      expect(error.code).toBe("invalid_idempotent_request");
    });

    it("forgets a key after 24 hours", async () => {
      const first = await fp.emails.send(base, { idempotencyKey: "k3" });
      clock.advance(24 * 60 * 60 * 1000 + 1);
      expect((await fp.emails.send(base, { idempotencyKey: "k3" })).id).not.toBe(first.id);
    });

    it("refuses a second use while the first is still being stored", async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const insideWrite = new Promise<void>((resolve) => (entered = resolve));
      const emails = fp.storage.emails;
      // The first request stops inside its storage write until the gate opens. The second starts
      // only once the first is there, whatever the backend's round-trip time.
      const slow: Storage = {
        ...fp.storage,
        emails: {
          ...emails,
          insertEmails: async (...args) => {
            entered();
            await gate;
            return emails.insertEmails(...args);
          },
        },
        migrate: fp.storage.migrate.bind(fp.storage),
        close: fp.storage.close.bind(fp.storage),
      };
      const gated = createFlagpost({ storage: slow, clock, logger: silentLogger });
      const first = gated.emails.send(base, { idempotencyKey: "k4" });
      await insideWrite;
      const error = await refusal(gated.emails.send(base, { idempotencyKey: "k4" }));
      expect(error.code).toBe("concurrent_idempotent_requests");
      release();
      const done = await first;
      expect(await gated.emails.send(base, { idempotencyKey: "k4" })).toEqual(done);
    });

    it("lets a key be used again at once when validation refused the request", async () => {
      await refusal(fp.emails.send({ ...base, to: "bad" }, { idempotencyKey: "k5" }));
      expect((await fp.emails.send(base, { idempotencyKey: "k5" })).status).toBe("queued");
    });

    it("refuses a key longer than 256 characters", async () => {
      expect((await refusal(fp.emails.send(base, { idempotencyKey: "k".repeat(257) }))).code).toBe("validation_error");
    });
  });

  describe("sendBatch", () => {
    it("stores every email in request order", async () => {
      const result = await fp.emails.sendBatch([
        base,
        { ...base, to: "bob@example.org" },
        { ...base, to: "carol@example.org" },
      ]);
      expect(result.errors).toBeUndefined();
      expect(result.data).toHaveLength(3);
      const to = await Promise.all(result.data.map(async ({ id }) => (await fp.emails.get(id)).to[0]));
      expect(to).toEqual(["ann@example.org", "bob@example.org", "carol@example.org"]);
    });

    it("strict: one invalid email refuses the batch, naming its index, and stores nothing", async () => {
      const before = await fp.storage.emails.claimDueEmails(clock.now(), 100, 1, "probe");
      expect(before).toEqual([]);
      const error = await refusal(fp.emails.sendBatch([base, { ...base, to: "broken" }, base]));
      expect(error.message).toBe(
        '"1.to" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"',
      );
      expect(await fp.storage.emails.claimDueEmails(clock.now(), 100, 1, "probe")).toEqual([]);
    });

    it("permissive: stores the valid ones and lists the others by index", async () => {
      const result = await fp.emails.sendBatch(
        [{ ...base, subject: "" }, base, { ...base, extra: 1 } as SendEmailRequest],
        { validation: "permissive" },
      );
      expect(result.data).toHaveLength(1);
      expect(result.errors).toEqual([
        { index: 0, message: '"subject" must not be empty' },
        { index: 2, message: '"extra" is not a known field' },
      ]);
      expect((await fp.emails.get(result.data[0]!.id)).status).toBe("queued");
    });

    it("refuses an empty batch, more than 100 emails, and an unknown mode", async () => {
      expect((await refusal(fp.emails.sendBatch([]))).message).toBe("body must be an array of 1 to 100 emails");
      expect((await refusal(fp.emails.sendBatch(Array(101).fill(base)))).message).toBe(
        "body must be an array of 1 to 100 emails",
      );
      expect((await refusal(fp.emails.sendBatch([base], { validation: "lenient" as "strict" }))).message).toMatch(
        /^"x-batch-validation" must be/,
      );
    });

    it("replays a batch by Idempotency-Key, permissive errors included", async () => {
      const first = await fp.emails.sendBatch([base, { ...base, to: "x" }], {
        validation: "permissive",
        idempotencyKey: "b1",
      });
      expect(
        await fp.emails.sendBatch([base, { ...base, to: "x" }], { validation: "permissive", idempotencyKey: "b1" }),
      ).toEqual(first);
      // The mode is part of the request: the same key in strict mode is another request.
      expect((await refusal(fp.emails.sendBatch([base], { idempotencyKey: "b1" }))).code).toBe(
        "invalid_idempotent_request",
      );
    });
  });

  describe("recordEvent (delivery reports)", () => {
    async function sentEmail(): Promise<string> {
      const { id } = await fp.emails.send(base);
      const [claimed] = await fp.storage.emails.claimDueEmails(clock.now(), 1, 60_000, "w");
      await fp.storage.emails.transitionEmail(id, {
        from: ["queued"],
        leaseOwner: "w",
        to: "sent",
        sentAt: clock.now(),
        event: { type: "sent", at: clock.now() },
      });
      expect(claimed!.id).toBe(id);
      return id;
    }

    it("moves sent → delivered → complained, keeping each timestamp and the report's detail", async () => {
      const id = await sentEmail();
      const sentAt = new Date(clock.now()).toISOString();
      clock.advance(5000);
      const delivered = await fp.emails.recordEvent(id, {
        type: "delivered",
        detail: { provider: "x", smtp: "250 2.0.0 OK" },
      });
      expect(delivered).toMatchObject({
        status: "delivered",
        last_event: "delivered",
        sent_at: sentAt,
        delivered_at: new Date(clock.now()).toISOString(),
      });
      const complained = await fp.emails.recordEvent(id, {
        type: "complained",
        occurred_at: "2026-06-01T12:00:00+02:00",
      });
      expect(complained).toMatchObject({ status: "complained", sent_at: sentAt, delivered_at: delivered.delivered_at });
      const events = await fp.emails.events(id);
      expect(events.map((e) => e.type)).toEqual(["queued", "sent", "delivered", "complained"]);
      expect(events[2]!.detail).toEqual({ source: "report", provider: "x", smtp: "250 2.0.0 OK" });
      expect(events[3]!.occurred_at).toBe("2026-06-01T10:00:00.000Z");
    });

    it("refuses a move the lifecycle does not allow, with 422 invalid_transition, and changes nothing", async () => {
      const id = await sentEmail();
      await fp.emails.recordEvent(id, { type: "bounced" });
      const before = await fp.emails.get(id);
      const eventsBefore = await fp.emails.events(id);
      for (const type of ["delivered", "complained", "failed", "bounced"] as const) {
        const error = await refusal(fp.emails.recordEvent(id, { type }));
        expect(error.code).toBe("invalid_transition");
        expect(error.message).toBe(`An email that is bounced cannot become ${type}`);
      }
      expect(await fp.emails.get(id)).toEqual(before);
      expect(await fp.emails.events(id)).toEqual(eventsBefore);
    });

    it("refuses sent → failed and accepts queued → failed", async () => {
      const id = await sentEmail();
      expect((await refusal(fp.emails.recordEvent(id, { type: "failed" }))).code).toBe("invalid_transition");
      const { id: queued } = await fp.emails.send(base);
      expect((await fp.emails.recordEvent(queued, { type: "failed" })).status).toBe("failed");
    });

    it("validates the report", async () => {
      const id = await sentEmail();
      expect((await refusal(fp.emails.recordEvent(id, { type: "opened" as "delivered" }))).message).toBe(
        '"type" must be one of "delivered", "bounced", "complained", "failed"',
      );
      expect(
        (await refusal(fp.emails.recordEvent(id, { type: "delivered", occurred_at: "2026-06-03T10:00:00Z" }))).message,
      ).toBe('"occurred_at" must not be more than 24 hours in the future');
      expect((await refusal(fp.emails.recordEvent(id, { type: "delivered", extra: true } as never))).message).toBe(
        '"extra" is not a known field',
      );
    });
  });
});
