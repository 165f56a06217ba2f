import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Backend, describeIfBackend } from "../../support/databases.js";
import { allVerified } from "../../webhooks/support/receiver.js";
import { feedbackReport, firstMessageOf, headerOf } from "./feedback-report.js";
import { type Stack, startStack } from "./harness.js";
import { isAlive, masterPid, postfixUnavailable, systemPostfixState } from "./postfix.js";
import { BOUNCE_DOMAIN } from "./serve.js";

/**
 * flagpost serve driven through a real Postfix on loopback (issue 23, item 5: "Delivery reports
 * from real mail servers"): every scenario's email reaches its contract status within its bound,
 * on SQLite and on PostgreSQL, and the suppression list and the webhooks say what the contract
 * says. Postfix's configuration: test/mta/postfix.
 */

/** Final status of every scenario but the expiring one, from its send. */
const BOUND_MS = 60_000;
/** The expiring email: the delay notice (Postfix's delay_warning_time is 10 s) … */
const DELAYED_BOUND_MS = 60_000;
/** … and its return after the queue lifetime (60 s) plus a few retry rounds (3–6 s apart). */
const EXPIRED_BOUND_MS = 150_000;
/** A webhook after the status change that emits it. */
const WEBHOOK_BOUND_MS = 30_000;

const FROM = "Flagpost Tests <hello@sender.test>";
const WEBHOOK_EVENTS = [
  "email.sent",
  "email.delivered",
  "email.delivery_delayed",
  "email.bounced",
  "email.complained",
  "email.failed",
  "suppression.added",
];

interface Bounce {
  type: string;
  subType?: string;
  reason?: string;
  recipients?: { email: string; status?: string; reason?: string; diagnostic?: string }[];
}

/** Registers the suite for one database (test/mta/sqlite.test.ts, test/mta/postgres.test.ts). */
export function describeScenarios(backend: Backend): void {
  const unavailable = postfixUnavailable();
  if (unavailable !== undefined) throw new Error(`npm run test:mta: ${unavailable}`);
  describeIfBackend(backend, `flagpost serve through a real Postfix (${backend})`, () => {
    let s: Stack;
    let systemBefore: string;
    const ids: Record<string, string> = {};
    const sentAt: Record<string, number> = {};

    async function send(name: string, request: { to: string[]; cc?: string[]; text?: string }): Promise<void> {
      sentAt[name] = Date.now();
      const { data, error } = await s.resend.emails.send({
        from: FROM,
        subject: `scenario ${name}`,
        text: `Hello from scenario ${name}.`,
        ...request,
      });
      if (error !== null || data === null) throw new Error(`sending ${name}: ${JSON.stringify(error)}`);
      ids[name] = data.id;
    }
    const bounceOf = async (name: string): Promise<Bounce> => {
      const [hook] = await s.untilWebhook(ids[name]!, "email.bounced", sentAt[name]!, BOUND_MS + WEBHOOK_BOUND_MS);
      return hook!.payload.data.bounce as Bounce;
    };

    beforeAll(async () => {
      systemBefore = await systemPostfixState();
      s = await startStack(backend);
      const hook = await s.serve.api<{ signing_secret: string }>("POST", "/v1/webhooks", {
        endpoint: `${s.receiver.url}/flagpost`,
        events: WEBHOOK_EVENTS,
      });
      expect(hook.status).toBe(201);
      s.receiver.secrets = [hook.body.signing_secret];
      expect((await s.serve.api("POST", "/v1/suppressions", { email: "gone@mail.test" })).status).toBe(200);
      // Every email goes out now, the slowest first; each test then waits for its own.
      await send("expiring", { to: ["later@deferred.test"] });
      await send("delivered", { to: ["ann@mail.test"] });
      await send("remoteUnknown", { to: ["bob@accepted.test"] });
      await send("refusedAtRcpt", { to: ["nosuch@mail.test"] });
      await send("mailboxFull", { to: ["full@mail.test"], text: "A message larger than the room left.\n".repeat(200) });
      await send("several", {
        to: ["multi-a@mail.test", "multi-b@mail.test"],
        cc: ["gone@mail.test", "nosuch-multi@mail.test"],
      });
      await send("complaint", { to: ["carol@mail.test"] });
    });
    afterAll(async () => {
      if (s === undefined) return; // beforeAll failed and closed what it had started
      // What each email went through, timed by its own events (a report's time is its DSN's Date).
      for (const [name, id] of Object.entries(ids)) {
        const events = await s.serve
          .api<{ data?: { type: string; occurred_at: string }[] }>("GET", `/v1/emails/${id}/events`)
          .then((r) => r.body.data ?? [])
          .catch(() => []);
        const at = (i: number) => Date.parse(events[i]?.occurred_at ?? "");
        const seconds = ((at(events.length - 1) - at(0)) / 1000).toFixed(1);
        console.info(`[${backend}] ${name}: ${events.map((e) => e.type).join(" → ")} (${seconds} s)`);
      }
      await s.close();
    });

    it("(a) delivered to a mailbox, with Postfix's success DSN → delivered", async () => {
      await s.untilStatus(ids.delivered!, "delivered", sentAt.delivered!, BOUND_MS);
      await s.untilWebhook(ids.delivered!, "email.delivered", sentAt.delivered!, BOUND_MS + WEBHOOK_BOUND_MS);
      const { message_id } = await s.email(ids.delivered!);
      expect(await s.postfix.mailbox("ann")).toContain(`Message-ID: ${message_id}`);
      expect(await s.suppression("ann@mail.test")).toBeUndefined();
    });

    it("(b) unknown user accepted, then refused by the next hop (550 5.1.1) → bounced, Permanent, suppressed", async () => {
      await s.untilStatus(ids.remoteUnknown!, "bounced", sentAt.remoteUnknown!, BOUND_MS);
      const bounce = await bounceOf("remoteUnknown");
      expect(bounce).toMatchObject({ type: "Permanent", reason: "userunknown" });
      expect(bounce.recipients).toEqual([expect.objectContaining({ email: "bob@accepted.test", status: "5.1.1" })]);
      expect(bounce.recipients![0]!.diagnostic).toMatch(/550 5\.1\.1/);
      expect(await s.suppression("bob@accepted.test")).toMatchObject({
        origin: "bounce",
        source_id: ids.remoteUnknown,
      });
    });

    it("(c) unknown user refused at RCPT → final (bounced), Permanent, suppressed", async () => {
      await s.untilStatus(ids.refusedAtRcpt!, "bounced", sentAt.refusedAtRcpt!, BOUND_MS);
      const bounce = await bounceOf("refusedAtRcpt");
      expect(bounce).toMatchObject({ type: "Permanent", reason: "userunknown" });
      expect(bounce.recipients).toEqual([expect.objectContaining({ email: "nosuch@mail.test" })]);
      expect(await s.suppression("nosuch@mail.test")).toMatchObject({
        origin: "bounce",
        source_id: ids.refusedAtRcpt,
      });
    });

    it("(d) mailbox over its quota → bounced, mailboxfull, Transient, not suppressed", async () => {
      await s.untilStatus(ids.mailboxFull!, "bounced", sentAt.mailboxFull!, BOUND_MS);
      const bounce = await bounceOf("mailboxFull");
      expect(bounce).toMatchObject({ type: "Transient", subType: "MailboxFull", reason: "mailboxfull" });
      expect(bounce.recipients).toEqual([expect.objectContaining({ email: "full@mail.test", reason: "mailboxfull" })]);
      expect(await s.suppression("full@mail.test")).toBeUndefined();
    });

    it("(f) several recipients, one suppressed and one refused at RCPT → delivered once the others report", async () => {
      const id = ids.several!;
      await s.untilStatus(id, "delivered", sentAt.several!, BOUND_MS);
      await s.untilWebhook(id, "email.delivered", sentAt.several!, BOUND_MS + WEBHOOK_BOUND_MS);
      const { message_id } = await s.email(id);
      expect(await s.postfix.mailbox("multi-a")).toContain(`Message-ID: ${message_id}`);
      expect(await s.postfix.mailbox("multi-b")).toContain(`Message-ID: ${message_id}`);
      // The suppressed address was left out of the envelope: nothing reached its mailbox.
      expect(await s.postfix.mailbox("gone")).toBe("");
      expect(await s.suppression("gone@mail.test")).toMatchObject({ origin: "manual", source_id: null });
      // A 5xx at RCPT suppresses by the same rule as a bounce report.
      expect(await s.suppression("nosuch-multi@mail.test")).toMatchObject({ origin: "bounce", source_id: id });
    });

    it("(g) an ARF complaint from a feedback loop → complained, suppressed", async () => {
      const id = ids.complaint!;
      await s.untilStatus(id, "delivered", sentAt.complaint!, BOUND_MS);
      const original = firstMessageOf(await s.postfix.mailbox("carol"));
      expect(headerOf(original, "return-path")).toMatch(new RegExp(`^<bounces\\+.+@${BOUNCE_DOMAIN}>$`));
      // The provider mails the report to the sender's registered feedback address, through Postfix.
      const mta = nodemailer.createTransport({ host: "127.0.0.1", port: s.postfix.ports.smtp, ignoreTLS: true });
      const complainedAt = Date.now();
      try {
        const to = `fbl@${BOUNCE_DOMAIN}`;
        const raw = feedbackReport({ original, recipient: "carol@mail.test", to, date: new Date() });
        await mta.sendMail({ envelope: { from: "fbl@feedback.mail.test", to: [to] }, raw });
      } finally {
        mta.close();
      }
      await s.untilStatus(id, "complained", complainedAt, BOUND_MS);
      await s.untilWebhook(id, "email.complained", complainedAt, BOUND_MS + WEBHOOK_BOUND_MS);
      expect(await s.suppression("carol@mail.test")).toMatchObject({ origin: "complaint", source_id: id });
    });

    it("(e) deferred until the queue lifetime ends → delivery_delayed, then bounced Transient (4.x.x), not suppressed", async () => {
      const id = ids.expiring!;
      await s.untilWebhook(id, "email.delivery_delayed", sentAt.expiring!, DELAYED_BOUND_MS + WEBHOOK_BOUND_MS);
      await s.untilStatus(id, "bounced", sentAt.expiring!, EXPIRED_BOUND_MS);
      const [hook] = await s.untilWebhook(id, "email.bounced", sentAt.expiring!, EXPIRED_BOUND_MS + WEBHOOK_BOUND_MS);
      const bounce = hook!.payload.data.bounce as Bounce;
      expect(bounce.type).toBe("Transient");
      expect(bounce.recipients).toEqual([expect.objectContaining({ email: "later@deferred.test" })]);
      expect(bounce.recipients![0]!.status).toMatch(/^4\.\d{1,3}\.\d{1,3}$/);
      const events = (await s.serve.api<{ data: { type: string }[] }>("GET", `/v1/emails/${id}/events`)).body.data;
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["sent", "delivery_delayed", "bounced"]));
      expect(await s.suppression("later@deferred.test")).toBeUndefined();
    });

    it("lists exactly the addresses the contract suppresses, and signs every webhook", async () => {
      const list = await s.serve.api<{ data: { email: string; origin: string }[] }>(
        "GET",
        "/v1/suppressions?limit=100",
      );
      expect(list.status).toBe(200);
      expect(list.body.data.map((e) => `${e.email} ${e.origin}`).sort()).toEqual([
        "bob@accepted.test bounce",
        "carol@mail.test complaint",
        "gone@mail.test manual",
        "nosuch-multi@mail.test bounce",
        "nosuch@mail.test bounce",
      ]);
      expect(allVerified(s.receiver.received)).toBe(true);
      // One final-status webhook per email: none reported twice, none left without its word.
      const finals = ["email.delivered", "email.bounced", "email.complained", "email.failed"];
      const count = (id: string, type: string) =>
        s.receiver.received.filter((d) => d.payload.type === type && d.payload.data.email_id === id).length;
      const expected: Record<string, string[]> = {
        delivered: ["email.delivered"],
        remoteUnknown: ["email.bounced"],
        refusedAtRcpt: ["email.bounced"],
        mailboxFull: ["email.bounced"],
        several: ["email.delivered"],
        complaint: ["email.delivered", "email.complained"],
        expiring: ["email.bounced"],
      };
      for (const [name, types] of Object.entries(expected))
        expect({ name, finals: finals.flatMap((t) => Array(count(ids[name]!, t)).fill(t)) }).toEqual({
          name,
          finals: types,
        });
    });

    it("orders each email's report events after the sent event they answer", async () => {
      const reports = new Set(["delivered", "bounced", "complained", "delivery_delayed"]);
      for (const [name, id] of Object.entries(ids)) {
        const { body } = await s.serve.api<{ data: { type: string; occurred_at: string }[] }>(
          "GET",
          `/v1/emails/${id}/events`,
        );
        const sent = body.data.find((e) => e.type === "sent");
        if (sent === undefined) continue; // refused at RCPT: no report answers it
        const early = body.data.filter((e) => reports.has(e.type) && e.occurred_at < sent.occurred_at);
        expect({ name, early }).toEqual({ name, early: [] });
      }
    });

    it("stops its own Postfix and leaves a system Postfix as it was", async () => {
      const master = await masterPid(s.postfix.dir);
      expect(master !== undefined && isAlive(master)).toBe(true);
      await s.postfix.stop();
      expect(isAlive(master!)).toBe(false);
      expect(await systemPostfixState()).toBe(systemBefore);
    });
  });
}
