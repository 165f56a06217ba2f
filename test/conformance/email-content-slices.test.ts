import { randomBytes } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { writeSlices } from "../../adapters/kysely/email-content-slices.js";
import { idempotencyPurger } from "../../src/idempotency-purge.js";
import type { EmailRecord } from "../../src/ports/storage/emails.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { BACKENDS, createTestStorage, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { fakeClock } from "../support/fake-clock.js";

/**
 * How kysely stores a large email (adapters/kysely/email-content-slices.ts), on SQLite, PostgreSQL
 * and MariaDB: the content above 1 MiB goes to slices and the row keeps the rest; slices whose
 * email never committed (a process killed between the two) are deleted by the purge that runs
 * with the idempotency purge, once they are older than an hour, and never a stored email's.
 */

const MiB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;

function largeEmail(id: string, createdAt: number): EmailRecord {
  const at = createdAt;
  return {
    id,
    content: {
      from: "hello@example.com",
      to: ["ann@example.com"],
      subject: "Large",
      attachments: [{ filename: "a.bin", content: randomBytes(3 * MiB).toString("base64") }],
    },
    status: "queued",
    messageId: `<${id}@example.com>`,
    createdAt: at,
    attempts: 0,
    nextAttemptAt: at,
  };
}

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

for (const backend of BACKENDS) {
  describeIfBackend(backend, `large email content on ${backend}`, () => {
    async function open(): Promise<{ storage: Storage; db: TestDatabase["db"] }> {
      const created = await createTestStorage(backend);
      database = created.database;
      return { storage: created.storage, db: created.database.db };
    }

    const sliceCount = async (db: TestDatabase["db"], emailId: string) =>
      Number(
        (
          await db
            .selectFrom("flagpost_email_content_slices")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("email_id", "=", emailId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it("keeps the attachment in 1 MiB slices and the row small", async () => {
      const { storage, db } = await open();
      const email = largeEmail("0197aaaa-0000-7000-8000-000000000001", Date.now());
      await storage.emails.insertEmails([email]);
      expect(await sliceCount(db, email.id)).toBe(4); // 4 MiB of base64
      const row = await db
        .selectFrom("flagpost_emails")
        .select(["content", "content_slice_bytes"])
        .where("id", "=", email.id)
        .executeTakeFirstOrThrow();
      expect(row.content.length).toBeLessThan(1000);
      expect(Number(row.content_slice_bytes)).toBe(email.content.attachments![0]!.content.length);
      expect(await storage.emails.getEmail(email.id)).toEqual(email);
    });

    it("purges slices left without their email once they are an hour old, with the idempotency purge", async () => {
      const { storage, db } = await open();
      const clock = fakeClock();
      const stored = largeEmail("0197aaaa-0000-7000-8000-000000000002", clock.now() - 2 * HOUR);
      await storage.emails.insertEmails([stored]);
      // A process killed after writing slices, before the row: what writeSlices leaves alone.
      const orphan = "0197aaaa-0000-7000-8000-000000000003";
      const young = "0197aaaa-0000-7000-8000-000000000004";
      await writeSlices(db, backend, orphan, ["a".repeat(MiB), "b"], clock.now() - 2 * HOUR);
      await writeSlices(db, backend, young, ["c"], clock.now() - HOUR / 2);

      const purger = idempotencyPurger({ storage, clock, logger: silentLogger }, { intervalMs: HOUR });
      await purger.runOnce();
      expect(await sliceCount(db, orphan)).toBe(0);
      expect(await sliceCount(db, young)).toBe(1); // may still be an insert under way
      expect(await storage.emails.getEmail(stored.id)).toEqual(stored);
      expect(await storage.emails.purgeOrphanContent!(clock.now() + HOUR)).toBe(1);
      expect(await sliceCount(db, young)).toBe(0);
      expect(await storage.emails.getEmail(stored.id)).toEqual(stored);
    });
  });
}
