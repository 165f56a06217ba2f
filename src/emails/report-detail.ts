import { classifyRecipient } from "./bounce-classification.js";
import { type RecipientBounceFacts, recipientFacts } from "./report-envelope.js";
import type { DeliveryReport } from "./reports.js";

/**
 * A bounce report's recipient, classified: the report's own type, sub-type and reason when its
 * source gave them, else what `classifyRecipient` makes of its status, reply and words (a report
 * built by hand, or by a source that leaves classification to flagpost).
 */
export function classifiedBounce(
  report: DeliveryReport,
  recipient = report.recipient?.toLowerCase() ?? "",
): RecipientBounceFacts {
  const classified = classifyRecipient({
    action: report.action ?? "failed",
    ...(report.status === undefined ? {} : { status: report.status }),
    ...(report.replyCode === undefined ? {} : { replyCode: report.replyCode }),
    ...(report.diagnostic === undefined ? {} : { diagnostic: report.diagnostic }),
    ...(report.command === undefined ? {} : { command: report.command }),
    ...(report.reason === undefined ? {} : { reason: report.reason }),
  });
  return recipientFacts({
    email: recipient ?? "",
    type: report.bounce?.type ?? classified.type,
    subType: report.bounce?.subType ?? classified.subType,
    status: report.status ?? classified.status,
    reason: report.bounce?.reason ?? report.reason ?? classified.reason,
    diagnostic: report.diagnostic ?? (report.bounce?.message || undefined),
  });
}

/**
 * The event detail of a report, snake_case like the rest: where it came from, whom it is about
 * and what it said; a bounce's classification as flat fields (`reason`, `bounce_type`,
 * `sub_type`), so the timeline shows them without nesting. An auto-reply's reason is `vacation`.
 */
export function reportDetail(
  report: DeliveryReport,
  recipient: string | undefined,
  bounce: RecipientBounceFacts | undefined,
): Record<string, unknown> {
  const detail: Record<string, unknown> = { source: report.source };
  if (recipient !== undefined) detail.recipient = recipient;
  if (report.action !== undefined) detail.action = report.action;
  const reason = bounce?.reason ?? report.reason ?? (report.type === "auto_replied" ? "vacation" : undefined);
  if (reason !== undefined) detail.reason = reason;
  if (bounce) {
    detail.bounce_type = bounce.type;
    detail.sub_type = bounce.subType;
  }
  const status = bounce?.status ?? report.status;
  if (status !== undefined) detail.status = status;
  if (report.replyCode !== undefined) detail.reply_code = report.replyCode;
  if (report.command !== undefined) detail.command = report.command;
  const diagnostic = bounce?.diagnostic ?? report.diagnostic;
  if (diagnostic !== undefined) detail.diagnostic = diagnostic;
  if (report.feedbackType !== undefined) detail.feedback_type = report.feedbackType;
  if (report.occurredAt !== undefined) detail.reported_at = report.occurredAt;
  if (report.providerMessageId !== undefined) detail.provider_message_id = report.providerMessageId;
  return detail;
}
