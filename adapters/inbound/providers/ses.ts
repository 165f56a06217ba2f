import { z } from "zod";
import {
  classifiedFields,
  classifyRecipient,
  clippedText,
  definedFields,
  type BounceReason,
  type DeliveryReport,
  emailIdFromVerp,
  isoTime,
  normalMessageId,
  normalRecipient,
  providerBounce,
  type RecipientFacts,
  withoutDiagnosticType,
} from "../../../src/emails/index.js";
import { parseInput } from "../../../src/validation.js";
import type { ReportSource } from "../../../src/ports/report-source.js";
import type { ProviderIntake } from "./provider-intake.js";
import { SnsVerifier, type SnsOptions } from "./sns-envelope.js";

/**
 * Amazon SES notifications delivered by SNS over HTTPS: bounce, complaint and delivery
 * notifications (identity notifications' `notificationType`) and the same from configuration-set
 * event publishing (`eventType`, which adds `DeliveryDelay`). A SubscriptionConfirmation for an
 * accepted topic is confirmed at once. The email is found by the VERP envelope sender
 * (`mail.source`), the original Message-ID, or SES's own message id.
 */
export type SesOptions = SnsOptions;

const text = (max: number) => z.string().max(max).optional();
const recipientSchema = z.looseObject({
  emailAddress: z.string().max(320),
  status: text(32),
  diagnosticCode: text(64 * 1024),
});
const recipientList = z.array(recipientSchema).max(1_000);
const notificationSchema = z.looseObject({
  notificationType: text(32),
  eventType: text(32),
  mail: z.looseObject({
    messageId: text(255),
    source: text(998),
    commonHeaders: z.looseObject({ messageId: text(998) }).optional(),
    headers: z
      .array(z.looseObject({ name: z.string().max(998), value: z.string().max(64 * 1024) }))
      .max(1_000)
      .optional(),
  }),
  bounce: z
    .looseObject({
      bounceType: z.enum(["Permanent", "Transient", "Undetermined"]),
      bounceSubType: z.string().max(64),
      bouncedRecipients: recipientList,
      timestamp: text(64),
    })
    .optional(),
  complaint: z
    .looseObject({
      complainedRecipients: recipientList,
      complaintFeedbackType: text(64),
      timestamp: text(64),
    })
    .optional(),
  delivery: z
    .looseObject({
      recipients: z.array(z.string().max(320)).max(1_000),
      smtpResponse: text(64 * 1024),
      timestamp: text(64),
    })
    .optional(),
  deliveryDelay: z
    .looseObject({ delayedRecipients: recipientList, delayType: text(64), timestamp: text(64) })
    .optional(),
});
type Notification = z.infer<typeof notificationSchema>;

/** The notification and event types that report a delivery outcome. */
const OUTCOMES = new Set(["Bounce", "Complaint", "Delivery", "DeliveryDelay"]);

/** The clock judging SNS timestamps is the caller's `checks.clock` when given, else `options.clock`. */
export function sesSource(options: SesOptions): ReportSource {
  const sns = new SnsVerifier(options);
  return {
    name: "ses",
    async receive(request, checks) {
      const envelope = await sns.verify(request.body, checks?.clock);
      if (envelope.Type === "SubscriptionConfirmation") {
        await sns.confirm(envelope);
        return [];
      }
      if (envelope.Type !== "Notification") return [];
      let message: { notificationType?: unknown; eventType?: unknown } | undefined;
      try {
        message = JSON.parse(envelope.Message) as typeof message;
      } catch {
        return []; // SNS's own test messages are plain text
      }
      // SES's "AmazonSnsSubscriptionSucceeded" and event types with no delivery outcome: nothing to apply.
      const kind = message?.notificationType ?? message?.eventType;
      if (typeof kind !== "string" || !OUTCOMES.has(kind)) return [];
      return reportsOf(parseInput(notificationSchema, message, ["Message"]));
    },
  };
}

/** `flagpost serve`: FLAGPOST_INBOUND_SES_TOPIC_ARNS (comma-separated) enables it. */
export const sesIntake: ProviderIntake = {
  name: "ses",
  settings: ["FLAGPOST_INBOUND_SES_TOPIC_ARNS"],
  fromSettings(setting) {
    const topics = setting("FLAGPOST_INBOUND_SES_TOPIC_ARNS");
    if (topics === undefined) return undefined;
    const topicArns = topics
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
    const bad = topicArns.find((t) => !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/.test(t));
    if (bad !== undefined)
      throw new Error(
        `FLAGPOST_INBOUND_SES_TOPIC_ARNS must list SNS topic ARNs (arn:aws:sns:region:account:name), not "${bad}"`,
      );
    return sesSource({ topicArns });
  },
};

function reportsOf(notification: Notification): DeliveryReport[] {
  const kind = notification.notificationType ?? notification.eventType;
  const mail = notification.mail;
  const base: DeliveryReport = { type: "delivered", source: "ses" };
  const emailId = emailIdFromVerp(mail.source);
  const header = mail.headers?.find((h) => h.name.toLowerCase() === "message-id")?.value;
  const messageId = normalMessageId(mail.commonHeaders?.messageId) ?? normalMessageId(header);
  if (emailId !== undefined) base.emailId = emailId;
  if (messageId !== undefined) base.messageId = messageId;
  if (mail.messageId !== undefined) base.providerMessageId = mail.messageId;

  const each = (addresses: string[], fill: (report: DeliveryReport, index: number) => void) =>
    addresses.map((address, index) => {
      const report = { ...base };
      const recipient = normalRecipient(address);
      if (recipient !== undefined) report.recipient = recipient;
      fill(report, index);
      return report;
    });
  const at = (report: DeliveryReport, timestamp: string | undefined) => {
    const occurredAt = isoTime(timestamp);
    if (occurredAt !== undefined) report.occurredAt = occurredAt;
  };
  // Every recipient is classified by the same rules as a DSN, from SES's status and the remote words.
  const detail = (report: DeliveryReport, facts: RecipientFacts) => {
    const words = clippedText(withoutDiagnosticType(facts.diagnostic));
    const classified = classifyRecipient({ ...facts, ...(words === undefined ? {} : { diagnostic: words }) });
    Object.assign(report, classifiedFields(classified), facts.action === undefined ? {} : { action: facts.action });
    if (words !== undefined) report.diagnostic = words;
    return classified;
  };

  if (kind === "Bounce" && notification.bounce) {
    const bounce = notification.bounce;
    return each(
      bounce.bouncedRecipients.map((r) => r.emailAddress),
      (report, i) => {
        const recipient = bounce.bouncedRecipients[i]!;
        report.type = "bounced";
        at(report, bounce.timestamp);
        const hint = SES_REASONS[bounce.bounceSubType];
        const classified = detail(report, {
          action: "failed",
          ...definedFields({ status: recipient.status, diagnostic: recipient.diagnosticCode, reason: hint }),
        });
        const message = report.diagnostic ?? report.status ?? bounce.bounceSubType;
        report.bounce = providerBounce(classified, { type: bounce.bounceType, subType: bounce.bounceSubType }, message);
      },
    );
  }
  if (kind === "Complaint" && notification.complaint) {
    const complaint = notification.complaint;
    return each(
      complaint.complainedRecipients.map((r) => r.emailAddress),
      (report) => {
        report.type = "complained";
        report.reason = "feedback";
        at(report, complaint.timestamp);
        if (complaint.complaintFeedbackType !== undefined) report.feedbackType = complaint.complaintFeedbackType;
      },
    );
  }
  if (kind === "Delivery" && notification.delivery) {
    const delivery = notification.delivery;
    return each(delivery.recipients, (report) => {
      at(report, delivery.timestamp);
      detail(report, { action: "delivered", ...definedFields({ diagnostic: delivery.smtpResponse }) });
    });
  }
  if (kind === "DeliveryDelay" && notification.deliveryDelay) {
    const delay = notification.deliveryDelay;
    return each(
      delay.delayedRecipients.map((r) => r.emailAddress),
      (report, i) => {
        report.type = "delayed";
        at(report, delay.timestamp);
        const { status, diagnosticCode } = delay.delayedRecipients[i]!;
        detail(report, { action: "delayed", ...definedFields({ status, diagnostic: diagnosticCode }) });
      },
    );
  }
  return []; // a type whose details are missing
}

/** SES's sub-types that name a reason; its words may still name a better one. */
const SES_REASONS: Record<string, BounceReason | undefined> = {
  NoEmail: "userunknown",
  MailboxFull: "mailboxfull",
  MessageTooLarge: "mesgtoobig",
  ContentRejected: "contenterror",
  AttachmentRejected: "virusdetected",
};
