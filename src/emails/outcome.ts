import { type RecipientRejection, TransportError, type TransportResult } from "../ports/transport.js";
import { classifyRecipient } from "./bounce-classification.js";
import type { BounceReason, BounceSummary } from "./reports.js";

/**
 * A refused recipient as an attempt records it (its event's `rejected`, snake_case as stored and
 * shown). A permanent refusal (5xx at RCPT from the first hop) is classified as a report's bounce
 * would be, its reply as the diagnostic: `status`, `reason`, `bounce_type` and `sub_type`, which
 * the worker's suppression and the email's bounce read.
 */
export interface RecordedRefusal {
  recipient: string;
  code?: number;
  response: string;
  permanent: boolean;
  status?: string;
  reason?: BounceReason;
  bounce_type?: BounceSummary["type"];
  sub_type?: string;
}

/** What an attempt settled for its recipients, typed until the event is written (`outcomeDetail`). */
interface Settlement {
  /** Recipients the server accepted; absent when none was reached by this outcome. */
  accepted?: string[];
  /** Recipients refused, each with its reply. */
  rejected: RecordedRefusal[];
  /** Everything else the event's detail says (message_id, response, error, suppressed, …). */
  detail: Record<string, unknown>;
}

/**
 * What one send attempt means for the email (docs/emails.md, "Outcomes"):
 * - the transport took it → `sent` (or `delivered` when the transport is the final stop), with
 *   any recipients it refused listed;
 * - every recipient refused permanently → `bounced`;
 * - any other permanent error → `failed`;
 * - anything else (transient errors, and errors that are not TransportErrors) → `retry`;
 * - every recipient is on the suppression list → `suppressed`, without asking the transport.
 */
export type Outcome = Settlement &
  (
    | { kind: "sent" | "delivered"; accepted: string[]; providerMessageId?: string }
    | { kind: "bounced" | "failed" | "retry" | "suppressed"; error: string }
  );

/** The outcome's event detail as stored: its other fields, then `accepted` and `rejected` (when there are any). */
export function outcomeDetail(outcome: Settlement): Record<string, unknown> {
  return {
    ...outcome.detail,
    ...(outcome.accepted === undefined ? {} : { accepted: outcome.accepted }),
    ...(outcome.rejected.length === 0 ? {} : { rejected: outcome.rejected }),
  };
}

function recordedRefusals(rejected: RecipientRejection[]): RecordedRefusal[] {
  return rejected.map((r) => {
    const refusal: RecordedRefusal = {
      recipient: r.recipient,
      ...(r.code === undefined ? {} : { code: r.code }),
      response: r.response,
      permanent: r.permanent,
    };
    if (!r.permanent) return refusal;
    const classified = classifyRecipient({
      action: "failed",
      command: "RCPT",
      diagnostic: r.response,
      ...(r.code === undefined ? {} : { replyCode: String(r.code) }),
    });
    if (classified.status !== undefined) refusal.status = classified.status;
    refusal.reason = classified.reason;
    refusal.bounce_type = classified.type;
    refusal.sub_type = classified.subType;
    return refusal;
  });
}

export function successOutcome(result: TransportResult): Outcome {
  const detail: Record<string, unknown> = { message_id: result.messageId };
  if (result.response !== undefined) detail.response = result.response;
  const outcome: Outcome = {
    kind: result.status,
    accepted: result.accepted,
    rejected: recordedRefusals(result.rejected),
    detail,
  };
  if (result.providerMessageId === undefined) return outcome;
  detail.provider_message_id = result.providerMessageId;
  return { ...outcome, providerMessageId: result.providerMessageId };
}

/** `recipients`: every envelope recipient, bare and lower-cased. */
export function failureOutcome(error: unknown, recipients: string[]): Outcome {
  if (!(error instanceof TransportError)) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { kind: "retry", error: message, rejected: [], detail: { error: message } };
  }
  const detail: Record<string, unknown> = { error: error.message };
  if (error.code !== undefined) detail.code = error.code;
  if (error.response !== undefined) detail.response = error.response;
  const rejected = recordedRefusals(error.rejected);
  if (error.kind === "transient") return { kind: "retry", error: error.message, rejected, detail };
  const refused = new Set(error.rejected.filter((r) => r.permanent).map((r) => r.recipient.toLowerCase()));
  const everyoneRefused = recipients.length > 0 && recipients.every((r) => refused.has(r));
  return { kind: everyoneRefused ? "bounced" : "failed", error: error.message, rejected, detail };
}
