import { setTimeout as delay } from "node:timers/promises";
import type { Kysely } from "kysely";
import { expect } from "vitest";
import { kyselyStorage } from "../../../adapters/kysely/index.js";
import type { SmtpSink } from "../../support/smtp-sink.js";
import type { Outcome } from "./load.js";

/**
 * What the long suites check in the database and at the SMTP server once the load is over:
 * the rows are exactly the accepted ones, whole, and every accepted email reached the server.
 */

export interface SentEmail {
  messageId: string;
  acceptedAt: number;
}

export interface EmailFigures {
  stored: number;
  /** Emails that reached the SMTP server at least once. */
  delivered: number;
  /** Copies beyond the first, over all emails (each copy with the email's own Message-ID). */
  duplicated: number;
  /** Message-IDs with more than one copy. */
  twice: Set<string>;
  sent: SentEmail[];
}

interface EmailRow {
  id: string;
  status: string;
  content: string;
  message_id: string;
}

/** Copies the SMTP server received, by Message-ID. */
export function copiesByMessageId(sink: SmtpSink): Map<string, number> {
  const copies = new Map<string, number>();
  for (const m of sink.received) if (m.messageId) copies.set(m.messageId, (copies.get(m.messageId) ?? 0) + 1);
  return copies;
}

/**
 * Waits (up to `budgetMs`) until every accepted email is stored `sent` and at the SMTP server,
 * then checks each row against what was sent: the same id, subject and text, one `queued`
 * event, and no row that was not accepted.
 */
export async function checkStoredEmails(
  db: Kysely<any>,
  accepted: readonly Outcome[],
  sink: SmtpSink,
  budgetMs: number,
): Promise<EmailFigures> {
  const deadline = Date.now() + budgetMs;
  let rows: EmailRow[];
  for (;;) {
    rows = (await db
      .selectFrom("flagpost_emails")
      .select(["id", "status", "content", "message_id"])
      .execute()) as EmailRow[];
    const copies = copiesByMessageId(sink);
    const done = rows.every((r) => r.status === "sent" && copies.has(r.message_id));
    if ((done && rows.length >= accepted.length) || Date.now() > deadline) break;
    await delay(200); // waiting for the outbox to drain, not for a fixed time
  }
  await sink.settled();
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(rows.length, "stored emails").toBe(accepted.length);
  const queuedEvents = new Map<string, number>();
  for (const e of (await db
    .selectFrom("flagpost_email_events")
    .select(["email_id", "type"])
    .where("type", "=", "queued")
    .execute()) as { email_id: string }[])
    queuedEvents.set(e.email_id, (queuedEvents.get(e.email_id) ?? 0) + 1);

  const copies = copiesByMessageId(sink);
  const sent: SentEmail[] = [];
  let delivered = 0;
  let duplicated = 0;
  const twice = new Set<string>();
  for (const outcome of accepted) {
    const row = byId.get(outcome.id);
    expect(row, `email ${outcome.job.index} (${outcome.id}) is stored`).toBeDefined();
    const content = JSON.parse(row!.content) as { subject: string; text?: string };
    expect(content.subject).toBe(`Order ${outcome.job.index}`);
    expect(content.text).toBe(`Thanks for order ${outcome.job.index}`);
    expect(row!.status, `email ${outcome.id}`).toBe("sent");
    expect(queuedEvents.get(outcome.id), `queued events of ${outcome.id}`).toBe(1);
    const count = copies.get(row!.message_id) ?? 0;
    expect(count, `copies of ${row!.message_id}`).toBeGreaterThanOrEqual(1);
    delivered += 1;
    duplicated += count - 1;
    if (count > 1) twice.add(row!.message_id);
    sent.push({ messageId: row!.message_id, acceptedAt: outcome.acceptedAt });
  }
  const known = new Set(rows.map((r) => r.message_id));
  for (const messageId of copies.keys()) expect(known.has(messageId), `${messageId} was never accepted`).toBe(true);
  return { stored: rows.length, delivered, duplicated, twice, sent };
}

/**
 * Every accepted event is stored once, under the id it was answered with, with its data whole. Read
 * through the storage port, so the check does not depend on how the columns encode ids and
 * properties (migration 0017).
 */
export async function checkStoredEvents(db: Kysely<any>, accepted: readonly Outcome[]): Promise<{ stored: number }> {
  const rows = await kyselyStorage(db).events.queryEvents({}, undefined, 10_000_000);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seqs = new Set<number>();
  for (const row of rows) seqs.add((row.properties as { seq: number }).seq);
  expect(rows.length, "stored events").toBe(accepted.length);
  expect(seqs.size, "distinct events stored").toBe(rows.length);
  for (const outcome of accepted) {
    const row = byId.get(outcome.id);
    expect(row, `event ${outcome.job.index} (${outcome.id}) is stored under its id`).toBeDefined();
    expect(row!.event).toBe("reliability.tick");
    expect(row!.userId).toBe(`user-${outcome.job.index % 500}`);
    expect(row!.properties).toEqual({ seq: outcome.job.index });
  }
  return { stored: rows.length };
}

/**
 * For each email accepted before a restart and first received after it (of `only`, when given):
 * how long after that restart (the new process listening) it reached the SMTP server.
 * `slowest`: the five that waited longest, for diagnostics.
 */
export function recoverySeconds(
  sent: readonly SentEmail[],
  lives: readonly { listeningAt: number }[],
  firstArrival: ReadonlyMap<string, number>,
  only?: ReadonlySet<string>,
): { count: number; all: number[]; worstMs: number; slowest: { messageId: string; ms: number; life: number }[] } {
  const waits: { messageId: string; ms: number; life: number }[] = [];
  for (const email of sent) {
    if (only && !only.has(email.messageId)) continue;
    const arrived = firstArrival.get(email.messageId)!;
    const life = lives.findLast((l) => l.listeningAt <= arrived);
    if (!life || life === lives[0] || email.acceptedAt >= life.listeningAt) continue;
    waits.push({ messageId: email.messageId, ms: arrived - life.listeningAt, life: lives.indexOf(life) });
  }
  const all = waits.map((w) => w.ms);
  return {
    count: all.length,
    all,
    worstMs: all.length === 0 ? 0 : Math.max(...all),
    slowest: waits.sort((a, b) => b.ms - a.ms).slice(0, 5),
  };
}

/** Message-IDs of the queued emails a process (by pid) holds a lease on. */
export async function leasedBy(db: Kysely<any>, pid: number): Promise<string[]> {
  const rows = (await db
    .selectFrom("flagpost_emails")
    .select(["message_id"])
    .where("status", "=", "queued")
    .where("lease_owner", "like", `%:${pid}:%`)
    .execute()) as { message_id: string }[];
  return rows.map((r) => r.message_id);
}

/** Send lag (accepted → first at the SMTP server) in ms of every email, in order of acceptance. */
export function sendLags(sent: readonly SentEmail[], firstArrival: ReadonlyMap<string, number>): number[] {
  return [...sent]
    .sort((a, b) => a.acceptedAt - b.acceptedAt)
    .map((email) => Math.max(0, firstArrival.get(email.messageId)! - email.acceptedAt));
}

/**
 * What happened to some emails, by Message-ID, for a figure off its bound: attempts, when it
 * was created, and its events (type, ms after creation, detail). Diagnostics only.
 */
export async function emailHistories(db: Kysely<any>, messageIds: Iterable<string>): Promise<unknown[]> {
  const wanted = [...messageIds].slice(0, 20);
  if (wanted.length === 0) return [];
  const emails = (await db
    .selectFrom("flagpost_emails")
    .select(["id", "message_id", "attempts", "created_at"])
    .where("message_id", "in", wanted)
    .execute()) as { id: string; message_id: string; attempts: number; created_at: number }[];
  const events = (await db
    .selectFrom("flagpost_email_events")
    .select(["email_id", "type", "at", "detail"])
    .where(
      "email_id",
      "in",
      emails.map((e) => e.id),
    )
    .orderBy("seq")
    .execute()) as { email_id: string; type: string; at: number; detail: string | null }[];
  return emails.map((e) => ({
    messageId: e.message_id,
    attempts: Number(e.attempts),
    createdAt: new Date(Number(e.created_at)).toISOString(),
    events: events
      .filter((v) => v.email_id === e.id)
      .map((v) => ({ type: v.type, afterMs: Number(v.at) - Number(e.created_at), detail: v.detail })),
  }));
}

/**
 * How long after `since` the process `pid` had taken over every one of `messageIds` (each leased
 * to it, or no longer queued); polled every 100 ms. Undefined when `alive()` turned false first
 * (the process was killed before it got to them all) or after two minutes.
 */
export async function takenOverAfter(
  db: Kysely<any>,
  messageIds: readonly string[],
  pid: number,
  since: number,
  alive: () => boolean,
): Promise<number | undefined> {
  if (messageIds.length === 0) return undefined;
  while (alive() && Date.now() - since < 120_000) {
    const rows = (await db
      .selectFrom("flagpost_emails")
      .select(["status", "lease_owner"])
      .where("message_id", "in", [...messageIds])
      .execute()) as { status: string; lease_owner: string | null }[];
    if (rows.every((r) => r.status !== "queued" || (r.lease_owner ?? "").includes(`:${pid}:`)))
      return Math.max(0, Date.now() - since);
    await delay(100);
  }
  return undefined;
}
