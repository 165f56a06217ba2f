import type { ErrorDetail } from "../errors.js";
import { uuidv7 } from "../ids.js";
import type { DomainEvent, EmailRecord } from "../ports/storage/index.js";
import { checkInput } from "../validation.js";
import { messageIdFor } from "./message.js";
import { scheduleProblem } from "./instants.js";
import { type ParsedSendRequest, sendEmailSchema } from "./schema.js";
import { emailDomainEvent } from "./webhook-events.js";

/** A send request checked against the contract, and the outbox record it becomes. */

/** The request checked (schema, then `scheduled_at` in the future and at most 30 days ahead); `prefix` starts error paths. */
export function checkSendRequest(
  request: unknown,
  now: number,
  prefix: PropertyKey[],
): { ok: true; value: ParsedSendRequest } | { ok: false; details: ErrorDetail[] } {
  const checked = checkInput(sendEmailSchema, request, prefix);
  if (!checked.ok) return checked;
  const scheduled = checked.value.scheduled_at;
  const problem = scheduled == null ? undefined : scheduleProblem(scheduled, now);
  if (problem === undefined) return checked;
  return { ok: false, details: [{ path: [...prefix, "scheduled_at"].map(String).join("."), message: problem }] };
}

function newEmailRecord(request: ParsedSendRequest, now: number): EmailRecord {
  const id = uuidv7(now);
  const createdAt = now;
  const scheduledAt = request.scheduled_at ?? undefined;
  const record: EmailRecord = {
    id,
    content: {
      from: request.from.text,
      to: request.to!.map((a) => a.text),
      subject: request.subject,
      ...(request.cc?.length ? { cc: request.cc.map((a) => a.text) } : {}),
      ...(request.bcc?.length ? { bcc: request.bcc.map((a) => a.text) } : {}),
      ...(request.reply_to?.length ? { replyTo: request.reply_to.map((a) => a.text) } : {}),
      ...(request.html ? { html: request.html } : {}),
      ...(request.text ? { text: request.text } : {}),
      ...(request.headers && Object.keys(request.headers).length > 0 ? { headers: request.headers } : {}),
      ...(request.tags?.length ? { tags: request.tags } : {}),
      ...(request.attachments?.length
        ? {
            attachments: request.attachments.map((a) => ({
              filename: a.filename,
              content: a.content,
              ...(a.content_type ? { contentType: a.content_type } : {}),
            })),
          }
        : {}),
    },
    status: "queued",
    messageId: messageIdFor(id, request.from.mail),
    createdAt,
    attempts: 0,
    nextAttemptAt: scheduledAt ?? createdAt,
  };
  if (scheduledAt !== undefined) record.scheduledAt = scheduledAt;
  return record;
}

/** An email accepted by send(): its outbox record, and the domain of its `from` as read at acceptance. */
export interface AcceptedEmail {
  record: EmailRecord;
  /** `from`'s domain, ASCII, lower case: what the reputation guard looks up. */
  sendingDomain: string;
}

export function acceptedEmail(request: ParsedSendRequest, now: number): AcceptedEmail {
  return { record: newEmailRecord(request, now), sendingDomain: request.from.mail.domain };
}

/** `email.scheduled` for each email accepted for later, stored with it. */
export function scheduledEvents(records: EmailRecord[]): DomainEvent[] {
  return records
    .filter((r) => r.scheduledAt !== undefined)
    .map((r) => emailDomainEvent("email.scheduled", r, r.createdAt));
}
