import { afterEach, describe, expect, it } from "vitest";
import { type EmailRecord, FlagpostError, type IdempotencyClaim, type Storage } from "../../../src/internal.js";
import { describeCapability, type StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

const T0 = Date.parse("2026-06-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
let counter = 0;

/** Ids that sort by creation, as uuidv7 ids do. */
function id(n: number): string {
  return `0197${String(n).padStart(4, "0")}-0000-7000-8000-${String(++counter).padStart(12, "0")}`;
}

function email(n: number, overrides: Partial<EmailRecord> = {}): EmailRecord {
  const emailId = overrides.id ?? id(n);
  return {
    id: emailId,
    content: {
      from: "Flagpost <hello@example.com>",
      to: [`user${n}@example.com`],
      subject: `Subject ${n}`,
      text: "plain",
    },
    status: "queued",
    messageId: `<${emailId}@example.com>`,
    createdAt: iso(T0),
    attempts: 0,
    nextAttemptAt: iso(T0),
    ...overrides,
  };
}

const LEASE = 60_000;

export function emailCases(harness: StorageHarness): void {
  describe("emails", () => {
    const storage = useStorage(harness);

    it("stores emails with their queued event and returns them unchanged", async () => {
      const full = email(1, {
        content: {
          from: '"Ann, Sales" <ann@example.com>',
          to: ["a@example.com", "B <b@example.com>"],
          cc: ["c@example.com"],
          bcc: ["d@example.com"],
          replyTo: ["r@example.com"],
          subject: "Grüße — ✓ 三",
          html: "<p>hi</p>",
          text: "hi",
          headers: { "X-Campaign": "spring" },
          tags: [{ name: "kind", value: "welcome" }],
          attachments: [
            { filename: "a.txt", content: Buffer.from("hello").toString("base64"), contentType: "text/plain" },
          ],
        },
        scheduledAt: iso(T0 + 5000),
        nextAttemptAt: iso(T0 + 5000),
      });
      await storage().emails.insertEmails([full, email(2)]);
      expect(await storage().emails.getEmail(full.id)).toEqual(full);
      expect(await storage().emails.listEmailEvents(full.id)).toEqual([
        { emailId: full.id, seq: 1, type: "scheduled", at: full.createdAt },
      ]);
      expect(await storage().emails.getEmail(id(99))).toBeUndefined();
      expect(await storage().emails.listEmailEvents(id(99))).toEqual([]);
    });

    it("returns fresh copies", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      e.content.to.push("mutated@example.com");
      const read = (await storage().emails.getEmail(e.id))!;
      expect(read.content.to).toEqual(["user1@example.com"]);
      read.content.to.push("again@example.com");
      expect((await storage().emails.getEmail(e.id))!.content.to).toEqual(["user1@example.com"]);
    });

    it("stores a batch all or nothing: a duplicate id stores none of it", async () => {
      const first = email(1);
      await storage().emails.insertEmails([first]);
      const fresh = email(2);
      const error = await storage()
        .emails.insertEmails([fresh, { ...email(3), id: first.id }])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("conflict");
      expect(await storage().emails.getEmail(fresh.id)).toBeUndefined();
      expect(await storage().emails.listEmailEvents(fresh.id)).toEqual([]);
    });

    it("completes an idempotency claim with the same write", async () => {
      const claim: IdempotencyClaim = {
        scope: "k",
        key: "i",
        fingerprint: "f",
        now: iso(T0),
        lockedUntil: iso(T0 + 60_000),
        expiresAt: iso(T0 + 86_400_000),
      };
      expect(await storage().idempotency.begin(claim)).toEqual({ state: "started" });
      const e = email(1);
      await storage().emails.insertEmails([e], { scope: "k", key: "i", response: { id: e.id } });
      expect(await storage().idempotency.begin({ ...claim, now: iso(T0 + 1) })).toEqual({
        state: "replay",
        response: { id: e.id },
      });
    });

    it("leaves the idempotency claim pending when the insert fails", async () => {
      const claim: IdempotencyClaim = {
        scope: "k",
        key: "i",
        fingerprint: "f",
        now: iso(T0),
        lockedUntil: iso(T0 + 60_000),
        expiresAt: iso(T0 + 86_400_000),
      };
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().idempotency.begin(claim);
      await expect(storage().emails.insertEmails([e], { scope: "k", key: "i", response: "never" })).rejects.toThrow();
      expect(await storage().idempotency.begin({ ...claim, now: iso(T0 + 1) })).toEqual({ state: "in_progress" });
    });

    it("claims due emails, longest-due first, up to the limit, with a lease and one more attempt", async () => {
      const late = email(1, { nextAttemptAt: iso(T0 - 1000) });
      const early = email(2, { nextAttemptAt: iso(T0 - 5000) });
      const now = email(3, { nextAttemptAt: iso(T0) });
      const future = email(4, { nextAttemptAt: iso(T0 + 1) });
      await storage().emails.insertEmails([late, early, now, future]);

      const first = await storage().emails.claimDueEmails(iso(T0), 2, LEASE, "w1");
      expect(first.map((e) => e.id)).toEqual([early.id, late.id]);
      expect(first[0]).toEqual({ ...early, attempts: 1, leaseOwner: "w1", leaseUntil: iso(T0 + LEASE) });
      expect(await storage().emails.getEmail(early.id)).toEqual(first[0]);

      const second = await storage().emails.claimDueEmails(iso(T0), 10, LEASE, "w2");
      expect(second.map((e) => e.id)).toEqual([now.id]);
      expect(await storage().emails.claimDueEmails(iso(T0), 10, LEASE, "w3")).toEqual([]);
      expect((await storage().emails.claimDueEmails(iso(T0 + 1), 10, LEASE, "w3")).map((e) => e.id)).toEqual([
        future.id,
      ]);
    });

    it("holds a scheduled email until its time", async () => {
      const scheduled = email(1, { scheduledAt: iso(T0 + 3_600_000), nextAttemptAt: iso(T0 + 3_600_000) });
      await storage().emails.insertEmails([scheduled]);
      expect(await storage().emails.claimDueEmails(iso(T0 + 3_599_999), 10, LEASE, "w")).toEqual([]);
      expect((await storage().emails.claimDueEmails(iso(T0 + 3_600_000), 10, LEASE, "w")).map((e) => e.id)).toEqual([
        scheduled.id,
      ]);
    });

    it("makes an email claimable again once its lease ended, and not before", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "crashed");
      expect(await storage().emails.claimDueEmails(iso(T0 + LEASE - 1), 1, LEASE, "other")).toEqual([]);
      const again = await storage().emails.claimDueEmails(iso(T0 + LEASE), 1, LEASE, "other");
      expect(again).toEqual([{ ...e, attempts: 2, leaseOwner: "other", leaseUntil: iso(T0 + 2 * LEASE) }]);
      // The crashed worker's late report is refused: the email is no longer its own.
      const late = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        leaseOwner: "crashed",
        to: "sent",
        sentAt: iso(T0 + LEASE + 1),
        event: { type: "sent", at: iso(T0 + LEASE + 1) },
      });
      expect(late).toBeUndefined();
      expect(await storage().emails.getEmail(e.id)).toEqual(again[0]);
    });

    it("never claims emails that are not queued", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "failed",
        event: { type: "failed", at: iso(T0) },
      });
      expect(await storage().emails.claimDueEmails(iso(T0 + 1), 10, LEASE, "w")).toEqual([]);
    });

    it("gives each email to exactly one of several concurrent claimers", async () => {
      const emails = Array.from({ length: 30 }, (_, i) => email(i));
      await storage().emails.insertEmails(emails);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, w) => storage().emails.claimDueEmails(iso(T0), 7, LEASE, `w${w}`)),
      );
      const ids = claims.flatMap((c) => c.map((e) => e.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThan(0);
      for (const [w, claimed] of claims.entries()) {
        for (const e of claimed) expect((await storage().emails.getEmail(e.id))?.leaseOwner).toBe(`w${w}`);
      }
      // Claims may come back short, never overlapping: SKIP LOCKED passes over rows another claim
      // has locked, and InnoDB may lock every row it scanned when a small table is read without
      // the index. The next claim takes the rest.
      const rest = await storage().emails.claimDueEmails(iso(T0), 100, LEASE, "late");
      expect(ids.length + rest.length).toBe(30);
      expect(new Set([...ids, ...rest.map((e) => e.id)]).size).toBe(30);
    });

    it("applies a transition with its event, sets timestamps once and releases the lease", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      const sent = await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        leaseOwner: "w",
        to: "sent",
        sentAt: iso(T0 + 10),
        event: { type: "sent", at: iso(T0 + 10), detail: { accepted: ["user1@example.com"], response: "250 OK" } },
      });
      expect(sent).toEqual({ ...e, status: "sent", attempts: 1, sentAt: iso(T0 + 10), lastEvent: "sent" });
      const delivered = await storage().emails.transitionEmail(e.id, {
        from: ["sent"],
        to: "delivered",
        sentAt: iso(T0 + 99), // ignored: set once
        deliveredAt: iso(T0 + 20),
        event: { type: "delivered", at: iso(T0 + 20) },
      });
      expect(delivered).toMatchObject({ status: "delivered", sentAt: iso(T0 + 10), deliveredAt: iso(T0 + 20) });
      expect(await storage().emails.listEmailEvents(e.id)).toEqual([
        { emailId: e.id, seq: 1, type: "queued", at: iso(T0) },
        {
          emailId: e.id,
          seq: 2,
          type: "sent",
          at: iso(T0 + 10),
          detail: { accepted: ["user1@example.com"], response: "250 OK" },
        },
        { emailId: e.id, seq: 3, type: "delivered", at: iso(T0 + 20) },
      ]);
    });

    it("refuses a transition from the wrong status or by a worker that does not hold it, and changes nothing", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      const before = await storage().emails.getEmail(e.id);
      expect(
        await storage().emails.transitionEmail(e.id, {
          from: ["sent"],
          to: "delivered",
          deliveredAt: iso(T0),
          event: { type: "delivered", at: iso(T0) },
        }),
      ).toBeUndefined();
      expect(
        await storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          leaseOwner: "intruder",
          to: "sent",
          sentAt: iso(T0),
          event: { type: "sent", at: iso(T0) },
        }),
      ).toBeUndefined();
      expect(
        await storage().emails.transitionEmail(id(77), {
          from: ["queued"],
          to: "failed",
          event: { type: "failed", at: iso(T0) },
        }),
      ).toBeUndefined();
      expect(await storage().emails.getEmail(e.id)).toEqual(before);
      expect((await storage().emails.listEmailEvents(e.id)).map((x) => x.type)).toEqual(["queued"]);
    });

    it("lets exactly one of two racing transitions from the same status win", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      const results = await Promise.all([
        storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          to: "failed",
          event: { type: "failed", at: iso(T0 + 1) },
        }),
        storage().emails.transitionEmail(e.id, {
          from: ["queued"],
          to: "bounced",
          event: { type: "bounced", at: iso(T0 + 1) },
        }),
      ]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      const events = await storage().emails.listEmailEvents(e.id);
      expect(events.map((x) => x.seq)).toEqual([1, 2]);
      expect(events[1]!.type).toBe((await storage().emails.getEmail(e.id))!.status);
    });

    it("schedules a retry: releases the lease, sets the next attempt and the error, records the event", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      expect(
        await storage().emails.scheduleRetry(e.id, {
          leaseOwner: "other",
          nextAttemptAt: iso(T0 + 5000),
          lastError: "x",
          event: { type: "delivery_delayed", at: iso(T0) },
        }),
      ).toBeUndefined();
      const retried = await storage().emails.scheduleRetry(e.id, {
        leaseOwner: "w",
        nextAttemptAt: iso(T0 + 5000),
        lastError: "451 try later",
        event: { type: "delivery_delayed", at: iso(T0 + 1), detail: { code: 451 } },
      });
      expect(retried).toEqual({
        ...e,
        attempts: 1,
        nextAttemptAt: iso(T0 + 5000),
        lastError: "451 try later",
        lastEvent: "delivery_delayed",
      });
      expect(await storage().emails.claimDueEmails(iso(T0 + 4999), 1, LEASE, "w")).toEqual([]);
      expect(await storage().emails.claimDueEmails(iso(T0 + 5000), 1, LEASE, "w")).toHaveLength(1);
      expect((await storage().emails.listEmailEvents(e.id)).at(-1)).toEqual({
        emailId: e.id,
        seq: 2,
        type: "delivery_delayed",
        at: iso(T0 + 1),
        detail: { code: 451 },
      });
    });

    it("refuses to schedule a retry of an email that is no longer queued", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "delivered",
        sentAt: iso(T0),
        deliveredAt: iso(T0),
        event: { type: "delivered", at: iso(T0) },
      });
      expect(
        await storage().emails.scheduleRetry(e.id, {
          leaseOwner: "w",
          nextAttemptAt: iso(T0),
          lastError: "x",
          event: { type: "delivery_delayed", at: iso(T0) },
        }),
      ).toBeUndefined();
    });
    it("records several outcomes in one write, each under its own conditions, answering in the order given whether it applied", async () => {
      const [a, b, c, d] = [email(1), email(2), email(3), email(4)];
      await storage().emails.insertEmails([a!, b!, c!, d!]);
      await storage().emails.claimDueEmails(iso(T0), 3, LEASE, "w"); // a, b, c
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "x"); // d
      const beforeC = await storage().emails.getEmail(c!.id);
      const beforeD = await storage().emails.getEmail(d!.id);
      const results = await storage().emails.recordOutcomes([
        {
          id: d!.id,
          transition: {
            from: ["queued"],
            leaseOwner: "w",
            to: "sent",
            sentAt: iso(T0 + 5),
            event: { type: "sent", at: iso(T0 + 5) },
          },
        },
        {
          id: b!.id,
          retry: {
            leaseOwner: "w",
            nextAttemptAt: iso(T0 + 5000),
            lastError: "451 later",
            event: { type: "delivery_delayed", at: iso(T0 + 5) },
          },
        },
        {
          id: id(99),
          transition: {
            from: ["queued"],
            leaseOwner: "w",
            to: "sent",
            sentAt: iso(T0 + 5),
            event: { type: "sent", at: iso(T0 + 5) },
          },
        },
        {
          id: c!.id,
          transition: {
            from: ["sent"],
            to: "delivered",
            deliveredAt: iso(T0 + 5),
            event: { type: "delivered", at: iso(T0 + 5) },
          },
        },
        {
          id: a!.id,
          transition: {
            from: ["queued"],
            leaseOwner: "w",
            to: "sent",
            sentAt: iso(T0 + 5),
            event: { type: "sent", at: iso(T0 + 5), detail: { response: "250 OK" } },
          },
        },
      ]);
      // d is x's, id(99) does not exist, c is not sent: only a and b apply.
      expect(results).toEqual([false, true, false, false, true]);
      expect(await storage().emails.getEmail(a!.id)).toEqual({
        ...a,
        status: "sent",
        attempts: 1,
        sentAt: iso(T0 + 5),
        lastEvent: "sent",
      });
      expect(await storage().emails.getEmail(b!.id)).toEqual({
        ...b,
        attempts: 1,
        nextAttemptAt: iso(T0 + 5000),
        lastError: "451 later",
        lastEvent: "delivery_delayed",
      });
      expect(await storage().emails.getEmail(c!.id)).toEqual(beforeC);
      expect(await storage().emails.getEmail(d!.id)).toEqual(beforeD);
      expect(await storage().emails.listEmailEvents(a!.id)).toEqual([
        { emailId: a!.id, seq: 1, type: "queued", at: iso(T0) },
        { emailId: a!.id, seq: 2, type: "sent", at: iso(T0 + 5), detail: { response: "250 OK" } },
      ]);
      expect((await storage().emails.listEmailEvents(b!.id)).map((e) => [e.seq, e.type])).toEqual([
        [1, "queued"],
        [2, "delivery_delayed"],
      ]);
      expect((await storage().emails.listEmailEvents(c!.id)).map((e) => e.type)).toEqual(["queued"]);
      expect((await storage().emails.listEmailEvents(d!.id)).map((e) => e.type)).toEqual(["queued"]);
      expect(await storage().emails.recordOutcomes([])).toEqual([]);
    });

    it("gives each email of a recorded batch its own timestamps, keeping those already set", async () => {
      const emails = [email(1), email(2), email(3)];
      await storage().emails.insertEmails(emails);
      await storage().emails.claimDueEmails(iso(T0), 3, LEASE, "w");
      const sentAt = (n: number) => iso(T0 + 10 * n);
      const sent = await storage().emails.recordOutcomes(
        emails.map((e, n) => ({
          id: e.id,
          transition: {
            from: ["queued"],
            leaseOwner: "w",
            to: "sent",
            sentAt: sentAt(n),
            event: { type: "sent", at: sentAt(n) },
          },
        })),
      );
      expect(sent).toEqual([true, true, true]);
      const delivered = await storage().emails.recordOutcomes(
        emails.map((e, n) => ({
          id: e.id,
          transition: {
            from: ["sent"],
            to: "delivered",
            sentAt: iso(T0 + 999),
            deliveredAt: iso(T0 + 100 + n),
            event: { type: "delivered", at: iso(T0 + 100 + n) },
          },
        })),
      );
      expect(delivered).toEqual([true, true, true]);
      for (const [n, e] of emails.entries()) {
        expect(await storage().emails.getEmail(e.id)).toEqual({
          ...e,
          status: "delivered",
          attempts: 1,
          sentAt: sentAt(n),
          deliveredAt: iso(T0 + 100 + n),
          lastEvent: "delivered",
        });
        expect((await storage().emails.listEmailEvents(e.id)).map((x) => [x.seq, x.type, x.at])).toEqual([
          [1, "queued", iso(T0)],
          [2, "sent", sentAt(n)],
          [3, "delivered", iso(T0 + 100 + n)],
        ]);
      }
    });

    it("never lets a recorded batch move an email that a report moved on meanwhile", async () => {
      const e = email(1);
      await storage().emails.insertEmails([e]);
      await storage().emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      // A delivery report got there first: the worker's own outcome must not step it back.
      await storage().emails.transitionEmail(e.id, {
        from: ["queued"],
        to: "delivered",
        sentAt: iso(T0 + 1),
        deliveredAt: iso(T0 + 1),
        event: { type: "delivered", at: iso(T0 + 1) },
      });
      const [applied] = await storage().emails.recordOutcomes([
        {
          id: e.id,
          transition: {
            from: ["queued"],
            leaseOwner: "w",
            to: "sent",
            sentAt: iso(T0 + 2),
            event: { type: "sent", at: iso(T0 + 2) },
          },
        },
      ]);
      expect(applied).toBe(false);
      expect(await storage().emails.getEmail(e.id)).toMatchObject({ status: "delivered", sentAt: iso(T0 + 1) });
    });
  });

  emailDurabilityCases(harness);
  emailSharedCases(harness);
}

function emailDurabilityCases(harness: StorageHarness): void {
  describeCapability(harness, "durable", "emails: durability", "reopen", () => {
    let current: Storage | undefined;
    afterEach(async () => {
      if (current) await harness.destroy(current);
      current = undefined;
    });

    it("keeps accepted emails, their leases and their history across close and reopen", async () => {
      current = await harness.create();
      const e = email(1);
      await current.emails.insertEmails([e, email(2)]);
      const [claimed] = await current.emails.claimDueEmails(iso(T0), 1, LEASE, "w");
      current = await harness.reopen!(current);
      expect(await current.emails.getEmail(e.id)).toEqual(claimed);
      expect(await current.emails.claimDueEmails(iso(T0), 10, LEASE, "x")).toHaveLength(1);
      expect((await current.emails.listEmailEvents(e.id)).map((x) => x.type)).toEqual(["queued"]);
    });
  });
}

function emailSharedCases(harness: StorageHarness): void {
  describeCapability(harness, "shared", "emails: shared by several processes", "openShared", () => {
    let dispose: (() => Promise<void>) | undefined;
    afterEach(async () => {
      await dispose?.();
      dispose = undefined;
    });

    it("gives each email to exactly one of several processes claiming at once", async () => {
      const shared = await harness.openShared!(3);
      dispose = shared.dispose;
      for (const s of shared.storages) await s.migrate();
      const emails = Array.from({ length: 40 }, (_, i) => email(i));
      await shared.storages[0]!.emails.insertEmails(emails);
      const claims = await Promise.all(
        shared.storages.flatMap((s, p) => [0, 1].map((w) => s.emails.claimDueEmails(iso(T0), 8, LEASE, `p${p}w${w}`))),
      );
      const ids = claims.flatMap((c) => c.map((e) => e.id));
      expect(new Set(ids).size).toBe(ids.length);
      // As above: claims may come back short, never overlapping.
      expect(ids.length).toBeGreaterThan(0);
      const rest = await shared.storages[1]!.emails.claimDueEmails(iso(T0), 100, LEASE, "late");
      expect(ids.length + rest.length).toBe(40);
    });
  });
}
