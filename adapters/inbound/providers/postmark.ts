import { z } from "zod";
import {
  type BounceReason,
  classifiedFields,
  classifyRecipient,
  clippedText,
  definedFields,
  type DeliveryReport,
  isoTime,
  normalRecipient,
  providerBounce,
  withoutDiagnosticType,
} from "../../../src/emails/index.js";
import { FlagpostError } from "../../../src/errors.js";
import { parseInput } from "../../../src/validation.js";
import type { ReportSource } from "../../../src/ports/report-source.js";
import { sameSecret } from "../../../src/auth/index.js";
import { jsonOf, missingSignature } from "./provider-request.js";
import type { ProviderIntake } from "./provider-intake.js";

/**
 * Postmark's webhooks (Bounce, Delivery, SpamComplaint). Postmark signs nothing; its webhook URL
 * carries Basic credentials (`https://user:password@host/v1/inbound/postmark`), which are checked
 * here in constant time. Postmark's own MessageID is the provider message id.
 */
export interface PostmarkOptions {
  user: string;
  password: string;
}

const text = (max: number) => z.string().max(max).optional();
const recordSchema = z.looseObject({
  RecordType: z.string().max(64),
  MessageID: text(255),
  Type: text(64),
  Email: text(320),
  Recipient: text(320),
  BouncedAt: text(64),
  DeliveredAt: text(64),
  Description: text(64 * 1024),
  Details: text(64 * 1024),
});

/**
 * Postmark's bounce types (its "Bounce types" table) as Resend's bounce type and SES's sub-type.
 * Types that are no delivery failure (AutoResponder, Subscribe, Unsubscribe, AddressChange,
 * ChallengeVerification, OpenRelayTest, InboundError, SMTPApiError, TemplateRenderingFailed…)
 * give no report.
 */
const BOUNCE_TYPES: Record<
  string,
  { type: "Permanent" | "Transient" | "Undetermined"; subType: string; reason?: BounceReason }
> = {
  HardBounce: { type: "Permanent", subType: "General" },
  BadEmailAddress: { type: "Permanent", subType: "NoEmail", reason: "userunknown" },
  ManuallyDeactivated: { type: "Permanent", subType: "Suppressed" },
  DMARCPolicy: { type: "Transient", subType: "ContentRejected", reason: "authfailure" },
  SoftBounce: { type: "Transient", subType: "General" },
  Transient: { type: "Transient", subType: "General" },
  DnsError: { type: "Transient", subType: "General", reason: "networkerror" },
  Blocked: { type: "Transient", subType: "ContentRejected", reason: "blocked" },
  Unknown: { type: "Undetermined", subType: "General" },
  SpamNotification: { type: "Transient", subType: "ContentRejected", reason: "spamdetected" },
  VirusNotification: { type: "Transient", subType: "AttachmentRejected", reason: "virusdetected" },
};

function credentialsOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(" ");
  if (space < 0 || header.slice(0, space).toLowerCase() !== "basic") return undefined;
  const decoded = Buffer.from(header.slice(space + 1).trim(), "base64").toString("utf8");
  return decoded.includes(":") ? decoded : undefined;
}

export function postmarkSource(options: PostmarkOptions): ReportSource {
  const expected = `${options.user}:${options.password}`;
  return {
    name: "postmark",
    async receive(request) {
      const given = credentialsOf(request.headers.authorization);
      if (given === undefined) throw missingSignature("Basic credentials (configure them in Postmark's webhook URL)");
      if (!sameSecret(given, expected))
        throw new FlagpostError("invalid_signature", "The Basic credentials do not match the user and password set");
      const record = parseInput(recordSchema, jsonOf(request.body) ?? null);
      const report = reportOf(record);
      return report ? [report] : [];
    },
  };
}

/** `flagpost serve`: FLAGPOST_INBOUND_POSTMARK_USER with FLAGPOST_INBOUND_POSTMARK_PASSWORD enable it. */
export const postmarkIntake: ProviderIntake = {
  name: "postmark",
  settings: ["FLAGPOST_INBOUND_POSTMARK_USER", "FLAGPOST_INBOUND_POSTMARK_PASSWORD"],
  fromSettings(setting) {
    const user = setting("FLAGPOST_INBOUND_POSTMARK_USER");
    const password = setting("FLAGPOST_INBOUND_POSTMARK_PASSWORD");
    if ((user === undefined) !== (password === undefined))
      throw new Error("FLAGPOST_INBOUND_POSTMARK_USER and FLAGPOST_INBOUND_POSTMARK_PASSWORD go together");
    if (user === undefined || password === undefined) return undefined;
    // The user and password travel in the webhook URL's `user:password@`, split at the first colon.
    if (user.includes(":")) throw new Error("FLAGPOST_INBOUND_POSTMARK_USER cannot hold a colon");
    return postmarkSource({ user, password });
  },
};

function reportOf(record: z.infer<typeof recordSchema>): DeliveryReport | undefined {
  const base: DeliveryReport = { type: "delivered", source: "postmark" };
  if (record.MessageID !== undefined) base.providerMessageId = record.MessageID;
  // Postmark's Details quote the Diagnostic-Code with its type (`smtp;550 5.1.1 …`): the words are after it.
  const diagnostic = withoutDiagnosticType(clippedText(record.Details)) ?? clippedText(record.Description);
  if (record.RecordType === "Delivery") {
    return withFields(base, record.Recipient, isoTime(record.DeliveredAt), diagnostic);
  }
  if (record.RecordType === "SpamComplaint") {
    const report = withFields({ ...base, type: "complained" }, record.Email, isoTime(record.BouncedAt), undefined);
    report.feedbackType = "abuse";
    report.reason = "feedback";
    return report;
  }
  if (record.RecordType !== "Bounce") return undefined; // Open, Click, SubscriptionChange…
  const kind = BOUNCE_TYPES[record.Type ?? ""];
  if (kind === undefined) return undefined;
  const report = withFields({ ...base, type: "bounced" }, record.Email, isoTime(record.BouncedAt), diagnostic);
  // Classified by the same rules as a DSN from Postmark's details (`smtp;550 5.1.1 …`); its type names
  // a reason for some kinds, and is the verdict where the words name none (providerBounce).
  const facts = { action: "failed" as const, ...definedFields({ diagnostic, reason: kind.reason }) };
  const classified = classifyRecipient(facts);
  Object.assign(report, classifiedFields(classified), { action: "failed" });
  report.bounce = providerBounce(classified, kind, diagnostic ?? record.Type ?? "");
  return report;
}

function withFields(
  report: DeliveryReport,
  recipient: string | undefined,
  occurredAt: string | undefined,
  diagnostic: string | undefined,
): DeliveryReport {
  const address = normalRecipient(recipient);
  if (address !== undefined) report.recipient = address;
  if (occurredAt !== undefined) report.occurredAt = occurredAt;
  if (diagnostic !== undefined) report.diagnostic = diagnostic;
  return report;
}
