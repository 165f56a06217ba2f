import {
  type Insertable,
  type Selectable,
  sql,
  type Transaction,
  type UpdateQueryBuilder,
  type UpdateResult,
} from "kysely";
import type {
  ClaimedEmail,
  EmailContent,
  EmailEvent,
  EmailHeadline,
  EmailListEntry,
  EmailEventType,
  EmailRecord,
  EmailStatus,
  NewEmailEvent,
} from "../../src/ports/storage/index.js";
import { headlineOf } from "../../src/ports/storage/email-headline.js";
import { sendingDomainOf } from "../../src/domains/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { joinSlices } from "./email-content-slices.js";
import { toNumber } from "./row-codec.js";
import type { EmailEventsTable, EmailsTable, FlagpostTables } from "./tables.js";

/** The outbox's rows and how they map to the port's records (email-repository.ts and its helpers). */

import type { Db } from "./tables.js";
export type { Db };
export type Trx = Transaction<FlagpostTables>;
export type EmailRow = Selectable<EmailsTable>;
export type EmailUpdate = UpdateQueryBuilder<FlagpostTables, "flagpost_emails", "flagpost_emails", UpdateResult>;

/** Rows per INSERT statement: far below every engine's limit on bound parameters. */
export const INSERT_CHUNK = 100;

/** Every column but the content (and its summary): what a list reads besides the headline. */
export const LIST_COLUMNS = [
  "id",
  "status",
  "message_id",
  "created_at",
  "scheduled_at",
  "sent_at",
  "delivered_at",
  "attempts",
  "next_attempt_at",
  "last_error",
  "failure_reason",
  "provider_message_id",
  "last_event",
  "lease_owner",
  "lease_until",
  "summary",
] as const;

type ListRow = Pick<EmailRow, (typeof LIST_COLUMNS)[number]>;

/** Everything of a row but the content: the optional fields only where the row has them (claims map 20 rows at a time). */
function fieldsOf(row: ListRow): Omit<EmailRecord, "content"> {
  const record: Omit<EmailRecord, "content"> = {
    id: row.id,
    status: row.status as EmailStatus,
    messageId: row.message_id,
    createdAt: toNumber(row.created_at),
    attempts: toNumber(row.attempts),
    nextAttemptAt: toNumber(row.next_attempt_at),
  };
  if (row.scheduled_at !== null) record.scheduledAt = toNumber(row.scheduled_at);
  if (row.sent_at !== null) record.sentAt = toNumber(row.sent_at);
  if (row.delivered_at !== null) record.deliveredAt = toNumber(row.delivered_at);
  if (row.last_error !== null) record.lastError = row.last_error;
  if (row.failure_reason !== null) record.failureReason = row.failure_reason;
  if (row.provider_message_id !== null) record.providerMessageId = row.provider_message_id;
  if (row.last_event !== null) record.lastEvent = row.last_event as EmailEventType;
  if (row.lease_owner !== null) record.leaseOwner = row.lease_owner;
  if (row.lease_until !== null) record.leaseUntil = toNumber(row.lease_until);
  return record;
}

/** The email a row stores, its content read back from its slices when it has them (email-content-slices.ts). */
export async function toRecord(db: Db, row: EmailRow): Promise<EmailRecord> {
  const content =
    row.content_slice_bytes === null
      ? (JSON.parse(row.content) as EmailContent)
      : await joinSlices(db, row.id, row.content);
  return { ...fieldsOf(row), content };
}

/** A list row: its headline from `summary`, or from `content` (rows older than the summary column). */
export function toListEntry(row: ListRow, content?: string): EmailListEntry {
  if (row.summary !== null) return { ...fieldsOf(row), content: JSON.parse(row.summary) as EmailHeadline };
  return headlineOf({ ...fieldsOf(row), content: JSON.parse(content!) as EmailContent });
}

/**
 * What a claim reads of each row when content above `maxContentBytes` is left out: every list
 * column, the content only when it is that small and not in slices (or the row has no summary to
 * stand in for it), and the content's stored length, the slices' bytes included. The length is
 * computed by the database: nothing large is read.
 */
export function claimColumns(maxContentBytes: number) {
  return [
    ...LIST_COLUMNS,
    sql<
      string | null
    >`case when content_slice_bytes is null and (length(content) <= ${maxContentBytes} or summary is null) then content end`.as(
      "content",
    ),
    sql<number | string>`length(content) + coalesce(content_slice_bytes, 0)`.as("content_bytes"),
  ] as const;
}

export type ClaimRow = ListRow & { content: string | null; content_bytes: number | string };

/** A row read with {@link claimColumns}: whole, or its headline and `omittedContentBytes`. */
export function toClaimed(row: ClaimRow): ClaimedEmail {
  if (row.content !== null) return { ...fieldsOf(row), content: JSON.parse(row.content) as EmailContent };
  return { ...toListEntry(row), omittedContentBytes: toNumber(row.content_bytes) };
}

/**
 * The row of a new email. `content` is the row's content column: the whole content as JSON, or
 * for a sliced email the skeleton whose strings are in slices holding `sliceBytes` bytes.
 */
export function toRow(email: EmailRecord, content: string, sliceBytes: number | null): Insertable<EmailsTable> {
  return {
    id: email.id,
    status: email.status,
    content,
    content_slice_bytes: sliceBytes,
    message_id: email.messageId,
    created_at: checkedEpochMs(email.createdAt, "createdAt"),
    scheduled_at: email.scheduledAt === undefined ? null : checkedEpochMs(email.scheduledAt, "scheduledAt"),
    sent_at: email.sentAt === undefined ? null : checkedEpochMs(email.sentAt, "sentAt"),
    delivered_at: email.deliveredAt === undefined ? null : checkedEpochMs(email.deliveredAt, "deliveredAt"),
    attempts: email.attempts,
    next_attempt_at: checkedEpochMs(email.nextAttemptAt, "nextAttemptAt"),
    last_error: email.lastError ?? null,
    failure_reason: email.failureReason ?? null,
    provider_message_id: email.providerMessageId ?? null,
    last_event: email.lastEvent ?? null,
    summary: JSON.stringify(headlineOf(email).content),
    sending_domain: sendingDomainOf(email.content) ?? null,
    lease_owner: email.leaseOwner ?? null,
    lease_until: email.leaseUntil === undefined ? null : checkedEpochMs(email.leaseUntil, "leaseUntil"),
    version: 1,
  };
}

/** The first event of a new email: `scheduled` when it waits for its time, else `queued`. */
export function firstEvent(email: EmailRecord): NewEmailEvent {
  return { type: email.scheduledAt === undefined ? "queued" : "scheduled", at: email.createdAt };
}

export function eventRow(emailId: string, seq: number, event: NewEmailEvent): Insertable<EmailEventsTable> {
  return {
    email_id: emailId,
    seq,
    type: event.type,
    at: checkedEpochMs(event.at, "event.at"),
    detail: event.detail === undefined ? null : JSON.stringify(event.detail),
  };
}

export function toEvent(row: Selectable<EmailEventsTable>): EmailEvent {
  const event: EmailEvent = {
    emailId: row.email_id,
    seq: toNumber(row.seq),
    type: row.type as EmailEventType,
    at: toNumber(row.at),
  };
  if (row.detail !== null) event.detail = JSON.parse(row.detail) as Record<string, unknown>;
  return event;
}
