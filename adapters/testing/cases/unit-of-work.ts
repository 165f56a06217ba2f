import { describe, expect, it } from "vitest";
import { FlagpostError } from "../../../src/errors.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, flag, sortedId, subscribedWebhook, T0 } from "./webhook-fixtures.js";
import { domain } from "./sending-domains.js";

const AUDIT_ENTRY = {
  id: "00000000-0000-7000-8000-00000000a001",
  flagKey: "kept-or-not",
  action: "created",
  at: Date.parse("2026-01-02T03:04:05.006Z"),
  actor: { type: "in_process" },
  changes: [],
} as const;

/** The port's unit of work (src/ports/storage/unit-of-work.ts): all of a transaction commits, or none. */
export function unitOfWorkCases(harness: StorageHarness): void {
  describe("unit of work", () => {
    const storage = useStorage(harness);

    it("keeps nothing of a transaction that throws, and hands the caller its error", async () => {
      const endpoint = await subscribedWebhook(storage(), ["flag.created"]);
      const revision = await storage().flags.revision();
      const refusal = new FlagpostError("validation_error", "refused after writing");
      const error = await storage()
        .transaction(async (tx) => {
          await tx.flags.insert(flag("kept-or-not"));
          await tx.flagHistory.append({ ...AUDIT_ENTRY, changes: [...AUDIT_ENTRY.changes] });
          await tx.domainEvents.record([domainEvent("flag.created")]);
          expect((await tx.flags.lock("kept-or-not"))?.key).toBe("kept-or-not");
          throw refusal;
        })
        .catch((e: unknown) => e);
      expect(error).toBe(refusal);
      expect(await storage().flags.get("kept-or-not")).toBeUndefined();
      expect(await storage().flagHistory.list("kept-or-not", { limit: 10 })).toEqual([]);
      expect(await deliveriesOf(storage(), [endpoint])).toEqual([]);
      expect(await storage().flags.revision()).toBe(revision);
    });

    it("keeps no suppression or domain change of a transaction that throws, nor its deliveries", async () => {
      const endpoint = await subscribedWebhook(storage(), [
        "suppression.added",
        "suppression.removed",
        "domain.updated",
      ]);
      const d = domain("rolled-back.example");
      await storage().domains.insertDomain(d);
      const kept = { id: sortedId(5), email: "kept@example.com", origin: "manual" as const, createdAt: T0 };
      await storage().transaction((tx) => tx.suppressions.insertAbsent([kept]));
      const added = { ...kept, id: sortedId(5), email: "added@example.com" };
      // A plain bug, not a FlagpostError: the caller gets it back as it is (a 500), not as `unavailable`.
      const bug = new TypeError("a bug after writing");
      const error = await storage()
        .transaction(async (tx) => {
          await tx.suppressions.insertAbsent([added]);
          const locked = await tx.suppressions.lock([added.email, kept.id]);
          expect(locked.map((s) => s.email).sort()).toEqual([added.email, kept.email]);
          await tx.suppressions.delete([kept.id]);
          const before = (await tx.domains.lock(d.id))!;
          await tx.domains.replace({ ...before, status: "failed", updatedAt: T0 + 1 });
          expect((await tx.domains.lock(d.id))?.status).toBe("failed");
          await tx.domainEvents.record([domainEvent("suppression.added"), domainEvent("domain.updated")]);
          throw bug;
        })
        .catch((e: unknown) => e);
      expect(error).toBe(bug);
      expect(await storage().suppressions.getSuppression(added.email)).toBeUndefined();
      expect(await storage().suppressions.getSuppression(kept.email)).toEqual(kept);
      expect(await storage().domains.getDomain(d.id)).toEqual(d);
      expect(await deliveriesOf(storage(), [endpoint])).toEqual([]);
    });

    it("commits every part of a transaction that resolves, and answers what it returned", async () => {
      const answer = await storage().transaction(async (tx) => {
        await tx.flags.insert(flag("kept-or-not"));
        await tx.flagHistory.append({ ...AUDIT_ENTRY, changes: [...AUDIT_ENTRY.changes] });
        return "done";
      });
      expect(answer).toBe("done");
      expect((await storage().flags.get("kept-or-not"))?.key).toBe("kept-or-not");
      expect((await storage().flagHistory.list("kept-or-not", { limit: 10 })).map((e) => e.id)).toEqual([
        AUDIT_ENTRY.id,
      ]);
    });
  });
}
