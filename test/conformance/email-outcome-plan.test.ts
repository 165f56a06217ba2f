import SQLite from "better-sqlite3";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import type { EmailRecord } from "../../src/ports/storage/index.js";

const AT = Date.parse("2026-01-01T00:00:00.000Z");

function email(i: number): EmailRecord {
  const id = `email-${String(i).padStart(4, "0")}`;
  return {
    id,
    content: { from: "a@flagpost.example", to: [`user${i}@example.org`], subject: `#${i}`, text: "hello" },
    status: "queued",
    messageId: `<${id}@flagpost.example>`,
    createdAt: AT,
    attempts: 0,
    nextAttemptAt: AT,
  };
}

describe("a worker's grouped outcome UPDATE on SQLite", () => {
  it("finds its rows by primary key, not by walking the queued emails through the status index", async () => {
    const handle = new SQLite(":memory:");
    const updates: CompiledQuery[] = [];
    const db = new Kysely<any>({
      dialect: new SqliteDialect({ database: handle }),
      log: (event) => {
        if (event.level === "query" && /^update "flagpost_emails" set "status"/.test(event.query.sql))
          updates.push(event.query);
      },
    });
    const storage = kyselyStorage(db);
    await storage.migrate();
    // A backlog of queued emails, as when accepting outpaces sending.
    await storage.emails.insertEmails(Array.from({ length: 300 }, (_, i) => email(i)));
    const claimed = await storage.emails.claimDueEmails(AT, 20, 60_000, "worker");
    const applied = await storage.emails.recordOutcomes(
      claimed.map((c) => ({
        id: c.id,
        transition: { from: ["queued"], leaseOwner: "worker", to: "sent", sentAt: AT, event: { type: "sent", at: AT } },
      })),
    );
    expect(applied).toEqual(claimed.map(() => true));
    expect(updates).toHaveLength(1);
    const plan = handle
      .prepare(`explain query plan ${updates[0]!.sql}`)
      .all(...updates[0]!.parameters)
      .map((row) => (row as { detail: string }).detail);
    expect(plan.join("\n")).toMatch(/USING INDEX sqlite_autoindex_flagpost_emails_1 \(id=\?\)/);
    expect(plan.join("\n")).not.toMatch(/flagpost_emails_due/);
    await db.destroy();
  });
});
