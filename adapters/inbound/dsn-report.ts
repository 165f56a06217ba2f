import {
  classifyRecipient,
  clippedText,
  type DeliveryAction,
  type DeliveryReport,
  type DeliveryReportType,
  enhancedStatus,
  firstVerpId,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
  smtpCommandFor,
} from "../../src/emails/index.js";
import { field, type FieldBlock, parseFieldBlocks } from "./field-blocks.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * RFC 3464 delivery status notifications: one report per recipient block of the
 * `message/delivery-status` part.
 *
 * Action → report: `failed` → bounced, whatever the status class (RFC 3464 makes it final; hard or
 * soft follows from the reason); `delayed` → delayed;
 * `delivered`, `relayed` and `expanded` → delivered. `relayed` is what Postfix writes when the
 * next hop (the recipient's own server, for a relay that sends straight to MX) took the message
 * without offering DSN itself: the same "the recipient's server accepted it" that Resend and SES
 * call delivered, and no later report will come. An Action that is missing or unknown is read
 * from the Status class (2 delivered, 4 delayed, 5 failed); with neither, the block is skipped.
 */

const ACTIONS = new Set<string>(["delivered", "relayed", "delayed", "failed", "expanded"]);

function actionOf(block: FieldBlock, status: string | undefined): DeliveryAction | undefined {
  // "failed (bad destination mailbox address)": the keyword is the first word.
  const action = field(block, "action")
    ?.split(/[\s(;]/, 1)[0]!
    .toLowerCase();
  if (action !== undefined && ACTIONS.has(action)) return action as DeliveryAction;
  // SendGrid writes `Action: expired` (and no Status) when it gave up retrying: a failure.
  if (action === "expired") return "failed";
  if (status?.startsWith("5.")) return "failed";
  if (status?.startsWith("4.")) return "delayed";
  if (status?.startsWith("2.")) return "delivered";
  return undefined;
}

function typeOf(action: DeliveryAction): DeliveryReportType {
  return action === "failed" ? "bounced" : action === "delayed" ? "delayed" : "delivered";
}

/** `smtp; 550 5.1.1 …` → `550 5.1.1 …`: the diagnostic type is not the server's words. */
function diagnosticText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const type = diagnosticType(value);
  return clippedText(type !== undefined ? value.slice(value.indexOf(";") + 1) : value);
}

/** `smtp`, `X-Unix`…: what kind of words the Diagnostic-Code holds (a local program's are no SMTP reply). */
function diagnosticType(value: string | undefined): string | undefined {
  const semicolon = value?.indexOf(";") ?? -1;
  const type = semicolon > 0 ? value!.slice(0, semicolon).trim() : "";
  return type !== "" && !/\s/.test(type) ? type : undefined;
}

function isRecipientBlock(block: FieldBlock): boolean {
  return block.has("final-recipient") || block.has("original-recipient") || block.has("action");
}

export function dsnReports(statusPart: string, message: ReportMessage): DeliveryReport[] {
  const blocks = parseFieldBlocks(statusPart, { recipientBlocks: true });
  const perMessage = blocks[0] && !isRecipientBlock(blocks[0]) ? blocks[0] : undefined;
  const emailId = firstVerpId([
    ...message.sentTo,
    field(message.returned, "return-path"),
    field(perMessage, "x-postfix-sender"),
  ]);
  const messageId =
    normalMessageId(field(message.returned, "message-id")) ??
    normalMessageId(field(perMessage, "x-original-message-id")) ??
    normalMessageId(message.inReplyTo);
  const reports: DeliveryReport[] = [];
  for (const block of blocks) {
    if (!isRecipientBlock(block)) continue;
    const given = enhancedStatus(field(block, "status"));
    const action = actionOf(block, given);
    if (action === undefined) continue;
    const type = typeOf(action);
    // Original-Recipient is the address as flagpost gave it; Final-Recipient may be an alias's target.
    const recipient =
      normalRecipient(field(block, "original-recipient")) ?? normalRecipient(field(block, "final-recipient"));
    const diagnostic = diagnosticText(field(block, "diagnostic-code"));
    const occurredAt = isoTime(field(block, "last-attempt-date")) ?? isoTime(message.date);
    const command = smtpCommandFor(message.notification, recipient);
    const facts = {
      status: given,
      diagnostic,
      diagnosticType: diagnosticType(field(block, "diagnostic-code")),
      command,
    };
    const classified = classifyRecipient({ action, ...readFields(facts) });
    const { status, replyCode } = classified;
    const report: DeliveryReport = {
      type,
      source: "dsn",
      action,
      reason: classified.reason,
      ...readFields({ recipient, emailId, messageId, occurredAt, status, replyCode, command: classified.command }),
      ...readFields({ diagnostic }),
    };
    if (type === "bounced")
      report.bounce = {
        type: classified.type,
        subType: classified.subType,
        reason: classified.reason,
        message: diagnostic ?? status ?? "",
      };
    reports.push(report);
  }
  return reports;
}
