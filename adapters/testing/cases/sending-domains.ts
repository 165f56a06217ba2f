import { describe, expect, it } from "vitest";
import { changeDomain } from "../../../src/domains/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { SendingDomainRecord } from "../../../src/ports/storage/domains.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, sortedId, subscribedWebhook, T0 } from "./webhook-fixtures.js";

export function domain(name: string, overrides: Partial<SendingDomainRecord> = {}): SendingDomainRecord {
  return {
    id: sortedId(7),
    name,
    region: "us-east-1",
    status: "not_started",
    selector: "flagpost1",
    privateKey: "aes256gcm:aXY.dGFn.Ym9keQ",
    returnPath: "bounces",
    records: [
      { record: "DKIM", name: "flagpost1._domainkey", type: "TXT", ttl: "Auto", status: "not_started", value: "p=AB" },
      {
        record: "SPF",
        name: "bounces",
        type: "MX",
        ttl: "Auto",
        status: "not_started",
        value: "mx.example.net",
        priority: 10,
      },
    ],
    openTracking: false,
    clickTracking: false,
    tls: "opportunistic",
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** Sending domains: unique by name, newest first, updates with their events, the recheck queue. */
export function sendingDomainCases(harness: StorageHarness): void {
  describe("sending domains", () => {
    const storage = useStorage(harness);

    it("stores a domain once per name and reads it back by id or name unchanged", async () => {
      const a = domain("example.com");
      await storage().domains.insertDomain(a);
      expect(await storage().domains.getDomain(a.id)).toEqual(a);
      expect(await storage().domains.getDomainByName("example.com")).toEqual(a);
      expect(await storage().domains.getDomain(sortedId(7))).toBeUndefined();
      const twin = storage().domains.insertDomain(domain("example.com"));
      await expect(twin).rejects.toBeInstanceOf(FlagpostError);
      await expect(twin).rejects.toMatchObject({ code: "conflict" });
    });

    it("lists newest first, paged by id", async () => {
      const all = [domain("a.example"), domain("b.example"), domain("c.example")];
      for (const d of all) await storage().domains.insertDomain(d);
      const first = await storage().domains.listDomains({ limit: 2 });
      expect(first.map((d) => d.name)).toEqual(["c.example", "b.example"]);
      const next = await storage().domains.listDomains({ limit: 2, after: first[1]!.id });
      expect(next.map((d) => d.name)).toEqual(["a.example"]);
      const back = await storage().domains.listDomains({ limit: 1, before: all[0]!.id });
      expect(back.map((d) => d.name)).toEqual(["b.example"]);
    });

    it("applies changes, stores their events in the same write, and deletes", async () => {
      const hook = await subscribedWebhook(storage(), ["domain.updated"]);
      const d = domain("example.org");
      await storage().domains.insertDomain(d);
      const records = d.records.map((r) => ({ ...r, status: "verified" as const }));
      const updated = await changeDomain(
        storage(),
        d.id,
        (before) => ({
          ...before,
          ...{ status: "verified", records, checkedAt: T0 + 1000, updatedAt: T0 + 1000, openTracking: true },
        }),
        (stored, before) => [domainEvent("domain.updated", { status: stored.status, previous: before.status })],
      );
      expect(updated).toEqual({
        ...d,
        status: "verified",
        records,
        openTracking: true,
        checkedAt: T0 + 1000,
        updatedAt: T0 + 1000,
      });
      expect(await storage().domains.getDomain(d.id)).toEqual(updated);
      expect(await deliveriesOf(storage(), [hook])).toEqual(["0:domain.updated"]);
      expect(await changeDomain(storage(), sortedId(7), (before) => ({ ...before, updatedAt: T0 }))).toBeUndefined();
      expect(await storage().domains.deleteDomain(d.id)).toBe(true);
      expect(await storage().domains.deleteDomain(d.id)).toBe(false);
      expect(await storage().domains.getDomain(d.id)).toBeUndefined();
    });

    it("hands the recheck the checked domains least recently checked first", async () => {
      const never = domain("never.example");
      const old = domain("old.example", { status: "verified", checkedAt: T0 });
      const older = domain("older.example", { status: "failed", checkedAt: T0 - 5000 });
      const fresh = domain("fresh.example", { status: "pending", checkedAt: T0 + 60_000 });
      for (const d of [never, old, older, fresh]) await storage().domains.insertDomain(d);
      const due = await storage().domains.listDomainsToRecheck(T0 + 1, 10);
      expect(due.map((d) => d.name)).toEqual(["older.example", "old.example"]);
      expect((await storage().domains.listDomainsToRecheck(T0 + 1, 1)).map((d) => d.name)).toEqual(["older.example"]);
    });
  });
}
