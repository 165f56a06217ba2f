import { describe, expect, it } from "vitest";
import { FlagpostError } from "../../../src/internal.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { deliveriesOf, domainEvent, flag, webhook } from "./webhook-fixtures.js";

const AUDIT_ENTRY = {
  id: "00000000-0000-7000-8000-00000000a001",
  flagKey: "kept-or-not",
  action: "created",
  at: "2026-01-02T03:04:05.006Z",
  actor: { type: "in_process" },
  changes: [],
} as const;

/** The port's unit of work (src/storage/unit-of-work.ts): all of a transaction commits, or none. */
export function unitOfWorkCases(harness: StorageHarness): void {
  describe("unit of work", () => {
    const storage = useStorage(harness);

    it("keeps nothing of a transaction that throws, and hands the caller its error", async () => {
      const endpoint = webhook({ events: ["flag.created"] });
      await storage().webhooks.insertWebhook(endpoint);
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
