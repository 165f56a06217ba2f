import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prepareEvent } from "../../src/events/event-input.js";
import { isPlainlyValidEvent, timestampMs, trackEventSchema } from "../../src/events/schema.js";
import { isoFromMs, parseIsoInstant, parseUtcInstant } from "../../src/time.js";

/** The shortcuts on the ingestion path must never accept what the full rules refuse. */

const edgeStrings = fc.constantFrom(
  "",
  " ",
  "a",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "\ud800",
  "\udc00",
  "\ud83d\ude00",
  "e".repeat(200),
  "e".repeat(201),
  "😀".repeat(100),
  "😀".repeat(101),
);
const text = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
  edgeStrings,
);
const instant = fc.oneof(
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, "Z")),
  fc.constantFrom(
    "2026-02-29T00:00:00Z",
    "2024-02-29T00:00:00.000Z",
    "2026-01-01T24:00:00Z",
    "0099-01-01T00:00:00.000Z",
    "2026-01-01",
    "2026-01-01T10:00:00+02:00",
  ),
  fc.date({ noInvalidDate: false }),
  text,
);
const value = fc.oneof(
  text,
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 12.5),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.date(),
);
const properties = fc.oneof(
  fc.record(
    {
      revenue: value,
      currency: fc.oneof(value, fc.constantFrom("EUR", "eur", "EURO", "ÉUR")),
      experimentId: value,
      variant: value,
      other: value,
    },
    { requiredKeys: [] },
  ),
  value,
  fc.constant(Object.create(null) as object),
);
const eventish = fc.oneof(
  fc.record(
    {
      event: fc.oneof(text, value),
      userId: fc.oneof(text, value),
      timestamp: fc.oneof(instant, value),
      properties,
      extra: value,
    },
    { requiredKeys: [] },
  ),
  fc.record({ event: text, userId: text, timestamp: instant, properties }, { requiredKeys: ["event", "userId"] }),
  fc.record({ event: fc.constant("e"), userId: fc.constant("u"), properties }, { requiredKeys: ["event", "userId"] }),
  value,
);

describe("isPlainlyValidEvent", () => {
  it("accepts only events the schema accepts, with the same values", () => {
    fc.assert(
      fc.property(eventish, (raw) => {
        if (!isPlainlyValidEvent(raw)) return;
        const parsed = trackEventSchema.safeParse(raw);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(raw);
      }),
      { numRuns: 20_000 },
    );
  });

  it("takes the common event (so the shortcut is actually used)", () => {
    expect(isPlainlyValidEvent({ event: "signup", userId: "u1" })).toBe(true);
    expect(
      isPlainlyValidEvent({
        event: "buy",
        userId: "u1",
        timestamp: "2026-01-31T10:00:00.123Z",
        properties: { revenue: 9.5, currency: "EUR", plan: "pro" },
      }),
    ).toBe(true);
    expect(isPlainlyValidEvent({ event: "buy", userId: "u1", timestamp: "2026-01-31T12:00:00+02:00" })).toBe(true);
    expect(isPlainlyValidEvent({ event: "buy", userId: "u1", typo: 1 })).toBe(false);
  });
});

describe("parseUtcInstant", () => {
  it("agrees with the general ISO 8601 parser wherever it answers", () => {
    fc.assert(
      fc.property(
        instant.filter((v): v is string => typeof v === "string"),
        (s) => {
          const fast = parseUtcInstant(s);
          if (fast !== undefined) expect(fast).toBe(parseIsoInstant(`${s.slice(0, -1)}+00:00`));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("reads toISOString() output back exactly, and refuses impossible dates", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0100-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59.999Z"),
          noInvalidDate: true,
        }),
        (d) => {
          expect(parseUtcInstant(d.toISOString())).toBe(d.getTime());
        },
      ),
    );
    for (const s of [
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00.000Z",
      "2026-01-01T24:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-01-01T10:00:00.12Z",
    ]) {
      expect(parseUtcInstant(s)).toBeUndefined();
    }
  });
});

describe("isoFromMs", () => {
  it("writes what Date#toISOString writes, across the whole range", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (d) => {
        expect(isoFromMs(d.getTime())).toBe(d.toISOString());
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [
      0, -1, 951_782_400_000, 4_107_542_399_999, -62_135_596_800_000, -62_135_596_800_001, 253_402_300_799_999,
      253_402_300_800_000,
    ]) {
      expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
    }
  });
});

describe("prepareEvent's stored timestamp", () => {
  it("is the instant's epoch ms, whatever form the timestamp came in", () => {
    const receipt = Date.UTC(2026, 10, 26, 12);
    fc.assert(
      fc.property(instant, (timestamp) => {
        const ms = timestampMs(timestamp);
        const record = prepareEvent({ event: "e", userId: "u", timestamp }, receipt, [], []);
        if (ms === undefined || ms < 0 || ms > receipt + 86_400_000) expect(record).toBeUndefined();
        else expect(record?.timestamp).toBe(ms);
      }),
      { numRuns: 20_000 },
    );
    const offset = prepareEvent({ event: "e", userId: "u", timestamp: "2026-01-31T12:00:00+02:00" }, receipt, [], []);
    expect(offset?.timestamp).toBe(Date.UTC(2026, 0, 31, 10));
    const lowerCase = prepareEvent({ event: "e", userId: "u", timestamp: "2026-01-31t10:00:00.000z" }, receipt, [], []);
    expect(lowerCase?.timestamp).toBe(Date.UTC(2026, 0, 31, 10));
  });
});
