import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyTransition, EMAIL_STATUSES, parseAddress, sourcesOf, TRANSITIONS } from "../../src/emails/index.js";
import { DEFAULT_RETRY_POLICY, delayCeiling, retryDelay } from "../../src/jobs/index.js";
import type { EmailStatus } from "../../src/ports/storage/emails.js";

describe("addresses", () => {
  it.each([
    ["ann@example.com", { address: "ann@example.com", domain: "example.com" }],
    ["  ann@example.com  ", { address: "ann@example.com", domain: "example.com" }],
    ["Ann <ann@Example.COM>", { name: "Ann", address: "ann@Example.COM", domain: "example.com" }],
    ['"Doe, Jane" <jane@example.com>', { name: "Doe, Jane", address: "jane@example.com", domain: "example.com" }],
    ['"Say \\"hi\\"" <a@example.com>', { name: 'Say "hi"', address: "a@example.com", domain: "example.com" }],
    ["<ann@example.com>", { address: "ann@example.com", domain: "example.com" }],
    ["Jürgen <j@bücher.example>", { name: "Jürgen", address: "j@bücher.example", domain: "xn--bcher-kva.example" }],
    ["o'brien+tag@sub.example.co.uk", { address: "o'brien+tag@sub.example.co.uk", domain: "sub.example.co.uk" }],
  ])("accepts %s", (text, expected) => {
    expect(parseAddress(text)).toEqual(expected);
  });

  it.each([
    "",
    "ann",
    "ann@",
    "@example.com",
    "ann@localhost",
    "ann@10.0.0.1",
    "ann@[127.0.0.1]",
    "ann..b@example.com",
    ".ann@example.com",
    "ann@-example.com",
    "ann@exa_mple.com",
    '"quoted local"@example.com',
    "Ann <ann@example.com",
    "Ann ann@example.com>",
    "Ann <ann@example.com>, Bob <bob@example.com>",
    "A <b> <ann@example.com>",
    'Unbalanced " <ann@example.com>',
    "Ann\r\nBcc: x@example.com <ann@example.com>",
    "ann@example.com\nX-Injected: 1",
    `${"a".repeat(65)}@example.com`,
  ])("refuses %j", (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });
});

describe("lifecycle", () => {
  const AT = Date.parse("2026-06-01T10:00:00.000Z");
  const LATER = Date.parse("2026-06-01T10:05:00.000Z");

  it("holds exactly docs/api.md's table", () => {
    expect(TRANSITIONS).toEqual({
      queued: ["sent", "delivered", "bounced", "failed", "canceled"],
      sent: ["delivered", "bounced", "complained"],
      delivered: ["complained"],
      bounced: [],
      failed: [],
      complained: [],
      canceled: [],
    });
    expect(sourcesOf("complained")).toEqual(["sent", "delivered"]);
  });

  it("refuses every move the table does not list", () => {
    for (const from of EMAIL_STATUSES) {
      for (const to of EMAIL_STATUSES) {
        const result = applyTransition({ status: from }, to, AT);
        expect(result.ok).toBe(TRANSITIONS[from].includes(to));
        if (!result.ok) expect(result.reason).toBe(`An email that is ${from} cannot become ${to}`);
      }
    }
  });

  it("sets timestamps once and never before sent_at", () => {
    expect(applyTransition({ status: "queued" }, "sent", AT)).toEqual({ ok: true, status: "sent", sentAt: AT });
    expect(applyTransition({ status: "queued" }, "delivered", AT)).toEqual({
      ok: true,
      status: "delivered",
      sentAt: AT,
      deliveredAt: AT,
    });
    expect(applyTransition({ status: "sent", sentAt: LATER }, "delivered", AT)).toEqual({
      ok: true,
      status: "delivered",
      sentAt: LATER,
      deliveredAt: LATER,
    });
    expect(applyTransition({ status: "delivered", sentAt: AT, deliveredAt: AT }, "complained", LATER)).toEqual({
      ok: true,
      status: "complained",
      sentAt: AT,
      deliveredAt: AT,
    });
    expect(applyTransition({ status: "queued" }, "bounced", AT)).toEqual({ ok: true, status: "bounced" });
  });

  it("never moves a timestamp, whatever the sequence of events", () => {
    const status = fc.constantFrom<EmailStatus>(...EMAIL_STATUSES);
    const time = fc.integer({ min: 0, max: 10_000 }).map((s) => Date.UTC(2026, 0, 1) + s * 1000);
    fc.assert(
      fc.property(fc.array(fc.tuple(status, time), { maxLength: 12 }), (steps) => {
        let email: { status: EmailStatus; sentAt?: number; deliveredAt?: number } = { status: "queued" };
        for (const [to, at] of steps) {
          const result = applyTransition(email, to, at);
          if (!result.ok) continue;
          if (email.sentAt !== undefined) expect(result.sentAt).toBe(email.sentAt);
          if (email.deliveredAt !== undefined) expect(result.deliveredAt).toBe(email.deliveredAt);
          if (result.deliveredAt !== undefined) expect(result.deliveredAt >= result.sentAt!).toBe(true);
          email = {
            status: result.status,
            ...(result.sentAt === undefined ? {} : { sentAt: result.sentAt }),
            ...(result.deliveredAt === undefined ? {} : { deliveredAt: result.deliveredAt }),
          };
        }
      }),
    );
  });
});

describe("retry backoff", () => {
  it("doubles from 5 s and caps at 30 min", () => {
    expect([1, 2, 3, 4, 7, 8, 9, 20].map((n) => delayCeiling(DEFAULT_RETRY_POLICY, n))).toEqual([
      5_000, 10_000, 20_000, 40_000, 320_000, 640_000, 1_280_000, 1_800_000,
    ]);
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBe(8);
  });

  it("draws every delay from [0, ceiling] (full jitter)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const delay = retryDelay(DEFAULT_RETRY_POLICY, attempt, () => r);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(delayCeiling(DEFAULT_RETRY_POLICY, attempt));
        },
      ),
    );
  });
});
