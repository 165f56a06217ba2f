import { type RecipientRejection, TransportError, type TransportResult } from "../ports/transport.js";
import { classifyRecipient } from "./bounce-classification.js";

/**
 * What one send attempt means for the email (docs/emails.md, "Outcomes"):
 * - the transport took it → `sent` (or `delivered` when the transport is the final stop), with
 *   any recipients it refused listed;
 * - every recipient refused permanently → `bounced`;
 * - any other permanent error → `failed`;
 * - anything else (transient errors, and errors that are not TransportErrors) → `retry`;
 * - every recipient is on the suppression list → `suppressed`, without asking the transport.
 */
export type Outcome =
  | { kind: "sent" | "delivered"; detail: Record<string, unknown>; providerMessageId?: string }
  | { kind: "bounced" | "failed" | "retry" | "suppressed"; error: string; detail: Record<string, unknown> };

/**
 * The refusals as recorded. A permanent one (5xx at RCPT from the first hop) is classified as a
 * report's bounce would be, its reply as the diagnostic: `status`, `reason`, `bounce_type` and
 * `sub_type`, which the worker's suppression and the email's bounce read.
 */
function rejectionDetail(rejected: RecipientRejection[]): Record<string, unknown>[] {
  return rejected.map((r) => {
    const detail: Record<string, unknown> = {
      recipient: r.recipient,
      ...(r.code === undefined ? {} : { code: r.code }),
      response: r.response,
      permanent: r.permanent,
    };
    if (!r.permanent) return detail;
    const classified = classifyRecipient({
      action: "failed",
      command: "RCPT",
      diagnostic: r.response,
      ...(r.code === undefined ? {} : { replyCode: String(r.code) }),
    });
    if (classified.status !== undefined) detail.status = classified.status;
    detail.reason = classified.reason;
    detail.bounce_type = classified.type;
    detail.sub_type = classified.subType;
    return detail;
  });
}

export function successOutcome(result: TransportResult): Outcome {
  const detail: Record<string, unknown> = { message_id: result.messageId, accepted: result.accepted };
  if (result.rejected.length > 0) detail.rejected = rejectionDetail(result.rejected);
  if (result.response !== undefined) detail.response = result.response;
  if (result.providerMessageId === undefined) return { kind: result.status, detail };
  detail.provider_message_id = result.providerMessageId;
  return { kind: result.status, detail, providerMessageId: result.providerMessageId };
}

/** `recipients`: every envelope recipient, bare and lower-cased. */
export function failureOutcome(error: unknown, recipients: string[]): Outcome {
  if (!(error instanceof TransportError)) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { kind: "retry", error: message, detail: { error: message } };
  }
  const detail: Record<string, unknown> = { error: error.message };
  if (error.code !== undefined) detail.code = error.code;
  if (error.response !== undefined) detail.response = error.response;
  if (error.rejected.length > 0) detail.rejected = rejectionDetail(error.rejected);
  if (error.kind === "transient") return { kind: "retry", error: error.message, detail };
  const refused = new Set(error.rejected.filter((r) => r.permanent).map((r) => r.recipient.toLowerCase()));
  const everyoneRefused = recipients.length > 0 && recipients.every((r) => refused.has(r));
  return { kind: everyoneRefused ? "bounced" : "failed", error: error.message, detail };
}
