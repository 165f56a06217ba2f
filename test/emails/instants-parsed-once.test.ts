import { afterEach, describe, expect, it, vi } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import * as time from "../../src/time.js";
import { fakeClock } from "../support/fake-clock.js";

/**
 * `scheduled_at` and `occurred_at` are read from text once, by the schema, and carried on as epoch
 * milliseconds: the checks (in the future, at most 30 days ahead) and the stored record take the
 * number. They were parsed three times on a send (the schema, the check, the record) and twice on
 * an update or a report by hand.
 */
vi.mock("../../src/time.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/time.js")>();
  return { ...original, parseIsoInstant: vi.fn(original.parseIsoInstant) };
});

const parses = (text: string) => vi.mocked(time.parseIsoInstant).mock.calls.filter(([given]) => given === text).length;

describe("a request's instants", () => {
  const clock = fakeClock(Date.parse("2026-06-01T10:00:00Z"));
  const fp = createFlagpost({ storage: memoryStorage(), clock, logger: silentLogger });
  const email = { from: "hello@example.com", to: "ann@example.org", subject: "Hi", text: "Hello" };
  afterEach(() => vi.mocked(time.parseIsoInstant).mockClear());

  it("are parsed once on a send, and stored as the instant they name", async () => {
    // An offset, so that the stored form shows the text was read (not copied).
    const { id } = await fp.emails.send({ ...email, scheduled_at: "2026-06-02T12:00:00+02:00" });
    expect(parses("2026-06-02T12:00:00+02:00")).toBe(1);
    expect((await fp.emails.get(id)).scheduled_at).toBe("2026-06-02T10:00:00.000Z");
  });

  it("are parsed once per email of a batch", async () => {
    const at = "2026-06-03T09:30:00+00:00";
    await fp.emails.sendBatch([
      { ...email, scheduled_at: at },
      { ...email, scheduled_at: at },
    ]);
    expect(parses(at)).toBe(2);
  });

  it("are parsed once on an update and on a report by hand", async () => {
    const { id } = await fp.emails.send({ ...email, scheduled_at: "2026-06-02T10:00:00Z" });
    const update = await fp.emails.update(id, { scheduled_at: "2026-06-04T08:00:00-01:00" });
    expect(parses("2026-06-04T08:00:00-01:00")).toBe(1);
    expect(update.scheduled_at).toBe("2026-06-04T09:00:00.000Z");

    await fp.emails.cancel(id);
    const sent = await fp.emails.send(email);
    await fp.storage.emails.transitionEmail(sent.id, {
      from: ["queued"],
      to: "sent",
      sentAt: Date.parse("2026-06-01T10:00:00.000Z"),
      event: { type: "sent", at: Date.parse("2026-06-01T10:00:00.000Z") },
    });
    await fp.emails.recordEvent(sent.id, { type: "delivered", occurred_at: "2026-06-01T11:00:00+01:00" });
    expect(parses("2026-06-01T11:00:00+01:00")).toBe(1);
    expect((await fp.emails.events(sent.id)).at(-1)?.occurred_at).toBe("2026-06-01T10:00:00.000Z");
  });
});
