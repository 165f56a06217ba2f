import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../../../src/ports/storage/api-keys.js";
import { FlagpostError } from "../../../src/errors.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

function key(id: string, hash: string, createdAt = Date.parse("2026-01-01T00:00:00.000Z")): ApiKeyRecord {
  return { id, name: `key ${id}`, hash, scopes: ["flags:read", "events:write"], createdAt };
}

const H1 = "a".repeat(64);
const H2 = "b".repeat(64);

export function apiKeyCases(harness: StorageHarness): void {
  describe("api keys", () => {
    const storage = useStorage(harness);

    it("finds a key by its hash, with its scopes", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      expect(await storage().apiKeys.findByHash(H1)).toEqual(key("k1", H1));
      expect(await storage().apiKeys.findByHash(H2)).toBeUndefined();
    });

    it("finds a key by its id, revoked or not", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      await storage().apiKeys.insert(key("k2", H2));
      await storage().apiKeys.revoke("k2", Date.parse("2026-03-01T00:00:00.000Z"));
      expect(await storage().apiKeys.findById("k1")).toEqual(key("k1", H1));
      expect((await storage().apiKeys.findById("k2"))?.revokedAt).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      expect(await storage().apiKeys.findById("nope")).toBeUndefined();
    });

    it("refuses a duplicate hash or id", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      for (const dup of [key("k2", H1), key("k1", H2)]) {
        const error = await storage()
          .apiKeys.insert(dup)
          .catch((e: unknown) => e);
        expect((error as FlagpostError).code).toBe("conflict");
      }
    });

    it("revokes once and keeps the first revocation time", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      expect(await storage().apiKeys.revoke("k1", Date.parse("2026-03-01T00:00:00.000Z"))).toBe(true);
      expect(await storage().apiKeys.revoke("k1", Date.parse("2026-04-01T00:00:00.000Z"))).toBe(true);
      expect((await storage().apiKeys.findByHash(H1))?.revokedAt).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      expect(await storage().apiKeys.revoke("nope", Date.parse("2026-03-01T00:00:00.000Z"))).toBe(false);
    });

    it("lists keys oldest first", async () => {
      await storage().apiKeys.insert(key("k2", H2, Date.parse("2026-01-02T00:00:00.000Z")));
      await storage().apiKeys.insert(key("k1", H1, Date.parse("2026-01-01T00:00:00.000Z")));
      expect((await storage().apiKeys.list()).map((k) => k.id)).toEqual(["k1", "k2"]);
    });

    it("lets exactly one of several concurrent inserts of one hash succeed", async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => storage().apiKeys.insert(key(`k${i}`, H1))),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") expect((r.reason as FlagpostError).code).toBe("conflict");
      }
    });

    it("keeps one revocation time when two revocations race", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      const times = ["2026-03-01T00:00:00.001Z", "2026-03-01T00:00:00.002Z"].map(Date.parse);
      expect(await Promise.all(times.map((t) => storage().apiKeys.revoke("k1", t)))).toEqual([true, true]);
      const revokedAt = (await storage().apiKeys.findByHash(H1))?.revokedAt;
      expect(times).toContain(revokedAt);
      await storage().apiKeys.revoke("k1", Date.parse("2026-04-01T00:00:00.000Z"));
      expect((await storage().apiKeys.findByHash(H1))?.revokedAt).toBe(revokedAt);
    });

    it("stores a key inserted as revoked, times unchanged", async () => {
      const revoked = {
        ...key("k1", H1, Date.parse("1999-12-31T23:59:59.999Z")),
        revokedAt: Date.parse("2000-01-01T00:00:00.001Z"),
      };
      await storage().apiKeys.insert(revoked);
      expect(await storage().apiKeys.findByHash(H1)).toEqual(revoked);
      expect(await storage().apiKeys.list()).toEqual([revoked]);
    });

    it("returns copies: changing a returned key does not change storage", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      const found = (await storage().apiKeys.findByHash(H1))!;
      found.scopes.push("full_access");
      const [listed] = await storage().apiKeys.list();
      listed!.scopes.length = 0;
      expect((await storage().apiKeys.findByHash(H1))?.scopes).toEqual(["flags:read", "events:write"]);
    });

    it("wraps nothing raw: errors are FlagpostErrors", async () => {
      await storage().apiKeys.insert(key("k1", H1));
      const error = await storage()
        .apiKeys.insert(key("k1", H1))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
    });
  });
}
