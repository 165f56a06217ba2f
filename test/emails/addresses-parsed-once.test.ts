import { afterEach, describe, expect, it, vi } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import * as addresses from "../../src/emails/addresses.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import {
  type MailTransport,
  type OutgoingMessage,
  TransportError,
  type TransportResult,
} from "../../src/ports/transport.js";
import { fakeClock } from "../support/fake-clock.js";

/**
 * Issue 26 step 5: an address text is read once into a MailAddress (name, address, ASCII
 * lower-case domain) when send() accepts it, and once per claimed email when the worker sends
 * it; the envelope recipients are worked out once and handed to the transport with the message;
 * the transport's typed result decides the outcome. Before, a send read each address twice (plus
 * `from` twice more) and each attempt read each recipient twice and `from` three times.
 */

// Every reading of an address text outside addresses.ts itself goes through these exports.
vi.mock("../../src/emails/addresses.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/emails/addresses.js")>();
  return {
    ...original,
    parseAddress: vi.fn(original.parseAddress),
    givenAddress: vi.fn(original.givenAddress),
    mailAddress: vi.fn(original.mailAddress),
    isAddress: vi.fn(original.isAddress),
  };
});

// The storage keeps the sending domain of each email for itself (memory reads it at each claim);
// that reading is the storage's own and not counted here.
let inStorage = false;
vi.mock("../../src/domains/reputation-window.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/domains/reputation-window.js")>();
  return {
    ...original,
    sendingDomainOf: (content: { from: string }) => {
      inStorage = true;
      try {
        return original.sendingDomainOf(content);
      } finally {
        inStorage = false;
      }
    },
  };
});

const readings: string[] = [];
for (const name of ["parseAddress", "givenAddress", "mailAddress", "isAddress"] as const) {
  const original = vi.mocked(addresses[name]).getMockImplementation()!;
  vi.mocked(addresses[name]).mockImplementation((text: string) => {
    if (!inStorage) readings.push(text);
    return original(text) as never;
  });
}
const times = (text: string) => readings.filter((t) => t === text).length;

const FROM = "Acme <hello@Acme.example>";
const ANN = "Ann <ann@example.org>";
const BOB = "bob@example.org";
const CAROL = '"Carol, C." <carol@example.org>';
const DAN = "dan@example.org";
const HELP = "help@acme.example";

describe("addresses read once", () => {
  let fp: Flagpost | undefined;
  afterEach(async () => {
    await fp?.close();
    fp = undefined;
    readings.length = 0;
  });

  /** A transport answering each attempt with the next result, keeping the messages it got. */
  function scripted(results: ((message: OutgoingMessage) => TransportResult)[]) {
    const messages: OutgoingMessage[] = [];
    const transport: MailTransport = {
      name: "scripted",
      send: async (message) => {
        messages.push(message);
        return results[messages.length - 1]!(message);
      },
    };
    return { transport, messages };
  }

  it("on send() once each, and once per attempt; the message and the transport share one recipient list", async () => {
    const clock = fakeClock();
    const { transport, messages } = scripted([
      // Attempt 1: Ann and Bob accepted, Carol refused for now, Dan for good.
      (m) => ({
        status: "sent",
        messageId: m.messageId,
        accepted: ["ann@example.org", "bob@example.org"],
        rejected: [
          { recipient: "carol@example.org", code: 450, response: "450 4.2.1 Mailbox busy", permanent: false },
          { recipient: "dan@example.org", code: 550, response: "550 5.1.1 No such user", permanent: true },
        ],
      }),
      // Attempt 2: Carol accepted.
      (m) => ({ status: "sent", messageId: m.messageId, accepted: [...m.recipients], rejected: [] }),
    ]);
    fp = createFlagpost({
      storage: memoryStorage(),
      clock,
      logger: silentLogger,
      transport,
      emailWorker: { autoStart: false, bounceDomain: "bounces.acme.example" },
    });
    await fp.ready();
    const all = [FROM, ANN, BOB, CAROL, DAN, HELP];

    const { id } = await fp.emails.send({
      from: FROM,
      to: [ANN, BOB],
      cc: CAROL,
      bcc: DAN,
      reply_to: HELP,
      subject: "Hi",
      text: "x",
    });
    expect(all.map(times)).toEqual([1, 1, 1, 1, 1, 1]);
    const stored = await fp.storage.emails.getEmail(id);
    // The Message-ID's domain comes from the parsed `from`: ASCII, lower case.
    expect(stored!.messageId).toBe(`<${id}@acme.example>`);

    readings.length = 0;
    expect(await fp.emails.worker!.runOnce()).toBe(1);
    expect(all.map(times)).toEqual([1, 1, 1, 1, 1, 1]);
    const first = messages[0]!;
    expect(first.from).toEqual({ name: "Acme", address: "hello@Acme.example", domain: "acme.example" });
    expect(first.cc).toEqual([{ name: "Carol, C.", address: "carol@example.org", domain: "example.org" }]);
    expect(first.recipients).toEqual(["ann@example.org", "bob@example.org", "carol@example.org", "dan@example.org"]);
    // One list: the envelope hands the transport the very recipients the message carries.
    expect(first.envelope!.to).toBe(first.recipients);

    // The typed partial result: a retry of Carol only, with the accepted and the refusals recorded.
    const delayed = (await fp.emails.events(id)).at(-1)!;
    expect(delayed.type).toBe("delivery_delayed");
    expect(delayed.detail).toMatchObject({
      partial: true,
      accepted: ["ann@example.org", "bob@example.org"],
      pending: ["carol@example.org"],
      rejected: [
        { recipient: "carol@example.org", code: 450, permanent: false },
        { recipient: "dan@example.org", code: 550, permanent: true, bounce_type: "Permanent", reason: "userunknown" },
      ],
    });

    readings.length = 0;
    clock.set((await fp.storage.emails.getEmail(id))!.nextAttemptAt);
    expect(await fp.emails.worker!.runOnce()).toBe(1);
    expect(all.map(times)).toEqual([1, 1, 1, 1, 1, 1]);
    const second = messages[1]!;
    expect(second.recipients).toEqual(["carol@example.org"]);
    expect(second.envelope!.to).toBe(second.recipients);

    // Sent: everyone the two attempts reached, Dan's refusal kept, and Dan suppressed by it.
    expect((await fp.emails.get(id)).last_event).toBe("sent");
    const sent = (await fp.emails.events(id)).at(-1)!;
    expect(sent.detail).toMatchObject({
      accepted: ["ann@example.org", "bob@example.org", "carol@example.org"],
      rejected: [{ recipient: "dan@example.org", permanent: true }],
    });
    expect((await fp.suppressions.get("dan@example.org")).email).toBe("dan@example.org");
  });

  it("a permanent refusal of every recipient bounces the email, from the typed refusals", async () => {
    const failing: MailTransport = {
      name: "refusing",
      send: async (message) => {
        throw new TransportError("permanent", "all refused", {
          code: 550,
          rejected: message.recipients.map((recipient) => ({
            recipient,
            code: 550,
            response: "550 5.1.1 No such user",
            permanent: true,
          })),
        });
      },
    };
    fp = createFlagpost({
      storage: memoryStorage(),
      logger: silentLogger,
      transport: failing,
      emailWorker: { autoStart: false },
    });
    await fp.ready();
    const { id } = await fp.emails.send({ from: FROM, to: [ANN, "ANN@example.org"], subject: "Hi", text: "x" });
    await fp.emails.worker!.runOnce();
    const email = await fp.emails.get(id);
    expect(email.last_event).toBe("bounced");
    expect(email.bounce?.type).toBe("Permanent");
  });
});

describe("the nodemailer transport", () => {
  it("takes the message's recipients as given when the transporter does not list the accepted ones", async () => {
    const sent: unknown[] = [];
    const transport = nodemailerTransport({ sendMail: async (mail) => (sent.push(mail), {}) });
    const message: OutgoingMessage = {
      id: "e1",
      messageId: "<e1@acme.example>",
      date: new Date("2026-06-01T10:00:00Z"),
      from: { address: "hello@acme.example", domain: "acme.example" },
      to: [{ address: "ann@example.org", domain: "example.org" }],
      cc: [{ address: "carol@example.org", domain: "example.org" }],
      bcc: [],
      replyTo: [],
      // Carol left out (suppressed): the transport does not work the list out again from to and cc.
      recipients: ["ann@example.org"],
      envelope: { from: "hello@acme.example", to: ["ann@example.org"] },
      subject: "Hi",
      text: "x",
      headers: {},
      attachments: [],
    };
    message.envelope!.to = message.recipients;
    const result = await transport.send(message);
    expect(result.accepted).toEqual(["ann@example.org"]);
    expect(sent).toHaveLength(1);
  });
});
