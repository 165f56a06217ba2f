import { describe, expect, it } from "vitest";
import { firstUse } from "../../../src/once-tokens.js";
import type { IdempotencyClaim } from "../../../src/ports/storage/idempotency.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

const T0 = Date.parse("2026-05-01T00:00:00.000Z");

/** A claim begun at `at`: locked for a minute, kept for a day (leases.ts borrows it too). */
export function claim(overrides: Partial<IdempotencyClaim> = {}, at = T0): IdempotencyClaim {
  return {
    scope: "key-1",
    key: "idem-1",
    fingerprint: "f".repeat(64),
    now: at,
    lockedUntil: at + 60_000,
    expiresAt: at + 86_400_000,
    ...overrides,
  };
}

export function idempotencyCases(harness: StorageHarness): void {
  describe("idempotency", () => {
    const storage = useStorage(harness);

    it("starts a new key, then replays the stored response for the same fingerprint", async () => {
      expect(await storage().idempotency.begin(claim())).toEqual({ state: "started" });
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: { id: "e1", n: [1, 2] } });
      expect(await storage().idempotency.begin(claim({}, T0 + 1000))).toEqual({
        state: "replay",
        response: { id: "e1", n: [1, 2] },
      });
    });

    it("reports a different fingerprint as a mismatch, before and after completion", async () => {
      await storage().idempotency.begin(claim());
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, T0 + 1))).toEqual({
        state: "mismatch",
      });
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: 1 });
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, T0 + 2))).toEqual({
        state: "mismatch",
      });
    });

    it("reports a pending, unexpired claim as in progress", async () => {
      await storage().idempotency.begin(claim());
      expect(await storage().idempotency.begin(claim({}, T0 + 1000))).toEqual({ state: "in_progress" });
    });

    it("lets a pending claim whose lock lapsed be taken over", async () => {
      await storage().idempotency.begin(claim());
      expect(await storage().idempotency.begin(claim({}, T0 + 61_000))).toEqual({ state: "started" });
      expect(await storage().idempotency.begin(claim({}, T0 + 62_000))).toEqual({ state: "in_progress" });
    });

    it("frees a released claim at once", async () => {
      await storage().idempotency.begin(claim());
      await storage().idempotency.release("key-1", "idem-1");
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, T0 + 1))).toEqual({
        state: "started",
      });
    });

    it("does not release a completed claim", async () => {
      await storage().idempotency.begin(claim());
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: "done" });
      await storage().idempotency.release("key-1", "idem-1");
      expect(await storage().idempotency.begin(claim({}, T0 + 1))).toEqual({ state: "replay", response: "done" });
    });

    it("treats an expired record as absent", async () => {
      await storage().idempotency.begin(claim());
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: "old" });
      const later = T0 + 86_400_001;
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, later))).toEqual({
        state: "started",
      });
    });

    it("starts afresh over an expired record even with the same fingerprint, and holds the new claim", async () => {
      await storage().idempotency.begin(claim());
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: "old" });
      const later = T0 + 86_400_000;
      expect(await storage().idempotency.begin(claim({}, later))).toEqual({ state: "started" });
      expect(await storage().idempotency.begin(claim({}, later + 1))).toEqual({ state: "in_progress" });
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: "new" });
      expect(await storage().idempotency.begin(claim({}, later + 2))).toEqual({ state: "replay", response: "new" });
    });

    it("replays a completed key after its lock lapsed, and still refuses another fingerprint", async () => {
      await storage().idempotency.begin(claim());
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response: { ok: true } });
      expect(await storage().idempotency.begin(claim({}, T0 + 61_000))).toEqual({
        state: "replay",
        response: { ok: true },
      });
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, T0 + 61_000))).toEqual({
        state: "mismatch",
      });
    });

    it("refuses another fingerprint on a pending claim whose lock lapsed", async () => {
      await storage().idempotency.begin(claim());
      expect(await storage().idempotency.begin(claim({ fingerprint: "0".repeat(64) }, T0 + 61_000))).toEqual({
        state: "mismatch",
      });
    });

    it("gives exactly one of several concurrent takeovers of a lapsed claim the key", async () => {
      await storage().idempotency.begin(claim());
      const results = await Promise.all(
        Array.from({ length: 8 }, () => storage().idempotency.begin(claim({}, T0 + 61_000))),
      );
      expect(results.filter((r) => r.state === "started")).toHaveLength(1);
      expect(results.filter((r) => r.state === "in_progress")).toHaveLength(7);
    });

    it("replays any JSON value, as a fresh copy each time", async () => {
      const response = { id: "e1", list: [1, 2.5, { deep: null }], text: "ü — ✓ 三", flag: false };
      await storage().idempotency.begin(claim());
      await storage().idempotency.complete({ scope: "key-1", key: "idem-1", response });
      const first = await storage().idempotency.begin(claim({}, T0 + 1));
      expect(first).toEqual({ state: "replay", response });
      ((first as { response: { list: unknown[] } }).response.list as unknown[]).push("mutated");
      expect(await storage().idempotency.begin(claim({}, T0 + 2))).toEqual({ state: "replay", response });

      await storage().idempotency.begin(claim({ key: "null" }));
      await storage().idempotency.complete({ scope: "key-1", key: "null", response: null });
      expect(await storage().idempotency.begin(claim({ key: "null" }, T0 + 1))).toEqual({
        state: "replay",
        response: null,
      });
    });

    it("keeps keys that differ only in case or trailing spaces apart", async () => {
      await storage().idempotency.begin(claim({ key: "Key" }));
      expect(await storage().idempotency.begin(claim({ key: "key", fingerprint: "0".repeat(64) }))).toEqual({
        state: "started",
      });
      expect(await storage().idempotency.begin(claim({ key: "Key ", fingerprint: "1".repeat(64) }))).toEqual({
        state: "started",
      });
      expect(await storage().idempotency.begin(claim({ key: "Key" }, T0 + 1))).toEqual({ state: "in_progress" });
    });

    it("ignores a release of a key it does not hold", async () => {
      await storage().idempotency.release("key-1", "never-claimed");
      expect(await storage().idempotency.begin(claim({ key: "never-claimed" }))).toEqual({ state: "started" });
    });

    it("keeps keys apart per scope", async () => {
      await storage().idempotency.begin(claim());
      expect(await storage().idempotency.begin(claim({ scope: "key-2", fingerprint: "0".repeat(64) }))).toEqual({
        state: "started",
      });
    });

    it("gives exactly one of several concurrent claims the key", async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => storage().idempotency.begin(claim())));
      expect(results.filter((r) => r.state === "started")).toHaveLength(1);
      expect(results.filter((r) => r.state === "in_progress")).toHaveLength(7);
    });

    it("purges expired records and keeps the others", async () => {
      await storage().idempotency.begin(claim({ key: "old" }));
      await storage().idempotency.begin(claim({ key: "new", expiresAt: T0 + 3 * 86_400_000 }));
      expect(await storage().idempotency.purgeExpired(T0 + 2 * 86_400_000)).toBe(1);
      expect(await storage().idempotency.begin(claim({ key: "new" }, T0 + 1))).toEqual({ state: "in_progress" });
    });
  });

  describe("single-use tokens (a Mailgun webhook's token)", () => {
    const storage = useStorage(harness);
    const TEN_MINUTES = 600_000;
    const use = (token: string, at: number) =>
      firstUse(storage().idempotency, "inbound:mailgun", token, at, TEN_MINUTES);

    it("accepts a token once, and again only after it expired", async () => {
      expect(await use("tok-1", T0)).toBe(true);
      expect(await use("tok-1", T0 + 1000)).toBe(false);
      expect(await use("tok-1", T0 + TEN_MINUTES - 1)).toBe(false);
      expect(await use("tok-2", T0 + 1000)).toBe(true);
      expect(await use("tok-1", T0 + TEN_MINUTES + 1)).toBe(true);
    });

    it("lets exactly one of several concurrent uses of a token through", async () => {
      const results = await Promise.all(Array.from({ length: 8 }, () => use("tok-race", T0)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("is purged with the expired idempotency keys", async () => {
      await use("tok-old", T0);
      expect(await storage().idempotency.purgeExpired(T0 + TEN_MINUTES + 1)).toBeGreaterThanOrEqual(1);
      expect(await use("tok-old", T0 + 1000)).toBe(true);
    });
  });
}
