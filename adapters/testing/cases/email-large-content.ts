import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FlagpostError } from "../../../src/errors.js";
import type { EmailRecord } from "../../../src/ports/storage/emails.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";
import { email, id, LEASE, T0 } from "./email-fixtures.js";

const MiB = 1024 * 1024;

/**
 * An email of several MiB whose strings cross a storage's slice boundaries (kysely stores content
 * above 1 MiB in slices of 1 Mi characters: adapters/kysely/email-content-slices.ts): an html body
 * with an astral character across the 1 Mi mark, two attachments, an empty one between them.
 */
function largeEmail(n: number, overrides: Partial<EmailRecord> = {}): EmailRecord {
  const html = `<p>${"a".repeat(MiB - 4)}😀${"ü三".repeat(200_000)}</p>`;
  return email(n, {
    content: {
      from: "Flagpost <hello@example.com>",
      to: [`user${n}@example.com`],
      subject: `Large ${n}`,
      html,
      text: "plain ✓",
      attachments: [
        { filename: "a.bin", content: randomBytes(2 * MiB + 7).toString("base64"), contentType: "application/pdf" },
        { filename: "empty.txt", content: "" },
        { filename: "grüße.bin", content: randomBytes(MiB).toString("base64") },
      ],
    },
    ...overrides,
  });
}

export function emailLargeContentCases(harness: StorageHarness): void {
  describe("emails: large content", () => {
    const storage = useStorage(harness);

    it("gives a multi-MiB email back exactly, by id, by claim and after a transition", async () => {
      const large = largeEmail(1);
      const small = email(2);
      await storage().emails.insertEmails([large, small]);
      expect(await storage().emails.getEmail(large.id)).toEqual(large);

      const [claimed] = await storage().emails.claimDueEmails(T0, 1, LEASE, "w1");
      expect(claimed!.id).toBe(large.id);
      expect(claimed!.content).toEqual(large.content);
      const sent = await storage().emails.transitionEmail(large.id, {
        from: ["queued"],
        leaseOwner: "w1",
        to: "sent",
        sentAt: T0 + 1,
        event: { type: "sent", at: T0 + 1 },
      });
      expect(sent!.content).toEqual(large.content);
      const [entry] = (await storage().emails.listEmails({ limit: 2 })).filter((e) => e.id === large.id);
      expect(entry!.content).toEqual({
        from: large.content.from,
        to: large.content.to,
        subject: large.content.subject,
      });
    });

    it("claims a large email without its content when asked, with its size", async () => {
      const large = largeEmail(1);
      await storage().emails.insertEmails([large]);
      const [claimed] = await storage().emails.claimDueEmails(T0, 1, LEASE, "w1", { maxContentBytes: MiB });
      expect(claimed!.omittedContentBytes).toBeGreaterThan(4 * MiB);
      expect(claimed!.content).toEqual({
        from: large.content.from,
        to: large.content.to,
        subject: large.content.subject,
      });
      expect((await storage().emails.getEmail(large.id))!.content).toEqual(large.content);
    });

    it("stores a batch of large emails all or nothing, and a refused one leaves the stored one whole", async () => {
      const first = largeEmail(1);
      await storage().emails.insertEmails([first]);
      const fresh = largeEmail(2);
      const error = await storage()
        .emails.insertEmails([fresh, largeEmail(3, { id: first.id })])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FlagpostError);
      expect((error as FlagpostError).code).toBe("conflict");
      expect(await storage().emails.getEmail(fresh.id)).toBeUndefined();
      expect(await storage().emails.getEmail(first.id)).toEqual(first);
      // The refused insert took its content with it: nothing is left for the purge.
      expect((await storage().emails.purgeOrphanContent?.(T0 + 86_400_000)) ?? 0).toBe(0);
      expect(await storage().emails.getEmail(first.id)).toEqual(first);
      expect(await storage().emails.getEmail(id(99))).toBeUndefined();
    });
  });
}
