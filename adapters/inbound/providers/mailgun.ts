import { createHmac } from "node:crypto";
import { z } from "zod";
import {
  classifiedFields,
  classifyRecipient,
  clippedText,
  definedFields,
  type DeliveryReport,
  emailIdFromVerp,
  providerBounce,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "../../../src/emails/index.js";
import { parseInput } from "../../../src/validation.js";
import type { ReportSource, SignatureChecks } from "../../../src/ports/report-source.js";
import { sameSecret } from "../../../src/auth/index.js";
import { systemClock } from "../../../src/ports/clock.js";
import { assertFresh, memorySignatureChecks, TOKEN_MEMORY_MS, unixSecondsMs } from "./freshness.js";
import { invalidSignature, jsonOf, missingSignature } from "./provider-request.js";
import type { ProviderIntake } from "./provider-intake.js";

/**
 * Mailgun's webhooks (the JSON form: `{signature, "event-data"}`). The signature is the hex
 * HMAC-SHA256 of `timestamp + token` with the domain's webhook signing key, compared in constant
 * time; the timestamp must be within 5 minutes of now and the token unused, since the HMAC covers
 * nothing else (see freshness.ts). The email is found by the Message-ID Mailgun reports, or by a VERP envelope sender.
 */
export interface MailgunOptions {
  /** The "HTTP webhook signing key" of the Mailgun account. */
  signingKey: string;
}

const text = (max: number) => z.string().max(max).optional();
const signatureSchema = z.object({
  timestamp: z.string().min(1).max(32),
  token: z.string().min(1).max(256),
  signature: z.string().min(1).max(256),
});
const eventSchema = z.looseObject({
  event: z.string().max(64),
  severity: text(32),
  recipient: text(320),
  timestamp: z.number().optional(),
  envelope: z.looseObject({ sender: text(512) }).optional(),
  message: z.looseObject({ headers: z.looseObject({ "message-id": text(998) }).optional() }).optional(),
  "delivery-status": z
    .looseObject({
      code: z.union([z.number(), z.string().max(16)]).optional(),
      "enhanced-code": text(32),
      message: text(64 * 1024),
      description: text(64 * 1024),
    })
    .optional(),
  reason: text(256),
});
const payloadSchema = z.looseObject({ "event-data": eventSchema });

/** `checks`: used when the caller passes none (a source called on its own); the HTTP layer passes its own. */
export function mailgunSource(
  options: MailgunOptions,
  ownChecks: SignatureChecks = memorySignatureChecks(systemClock),
): ReportSource {
  return {
    name: "mailgun",
    async receive(request, checks = ownChecks) {
      const body = jsonOf(request.body);
      const signature = signatureSchema.safeParse((body as { signature?: unknown } | undefined)?.signature);
      if (!signature.success) throw missingSignature("Mailgun signature (signature.timestamp, token, signature)");
      const { timestamp, token, signature: given } = signature.data;
      const expected = createHmac("sha256", options.signingKey)
        .update(timestamp + token)
        .digest("hex");
      if (!sameSecret(given.toLowerCase(), expected)) throw invalidSignature("Mailgun signature");
      assertFresh("Mailgun signature", unixSecondsMs(timestamp), checks.clock);
      if (!(await checks.firstUse("inbound:mailgun", token, TOKEN_MEMORY_MS)))
        throw invalidSignature("Mailgun signature (its token was used before)");
      const report = reportOf(parseInput(payloadSchema, body)["event-data"]);
      return report ? [report] : [];
    },
  };
}

/** `flagpost serve`: FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY enables it. */
export const mailgunIntake: ProviderIntake = {
  name: "mailgun",
  settings: ["FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY"],
  fromSettings(setting) {
    const signingKey = setting("FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY");
    return signingKey === undefined ? undefined : mailgunSource({ signingKey });
  },
};

function reportOf(event: z.infer<typeof eventSchema>): DeliveryReport | undefined {
  const severity = event.severity?.toLowerCase();
  let type: DeliveryReport["type"];
  if (event.event === "delivered") type = "delivered";
  else if (event.event === "complained") type = "complained";
  else if (event.event === "failed") type = severity === "temporary" ? "delayed" : "bounced";
  else return undefined; // accepted, rejected, opened, clicked, unsubscribed, stored
  const report: DeliveryReport = { type, source: "mailgun" };
  const recipient = normalRecipient(event.recipient);
  const emailId = emailIdFromVerp(event.envelope?.sender);
  const messageId = normalMessageId(event.message?.headers?.["message-id"]);
  const occurredAt = isoTime(event.timestamp);
  const delivery = event["delivery-status"];
  const diagnostic = clippedText(delivery?.message) ?? clippedText(delivery?.description) ?? clippedText(event.reason);
  Object.assign(report, readFields({ recipient, emailId, messageId, occurredAt, diagnostic }));
  if (type === "complained") {
    report.feedbackType = "abuse";
    report.reason = "feedback";
    return report;
  }
  // Classified by the same rules as a DSN, from the enhanced code, the reply code and the words.
  const action = type === "bounced" ? "failed" : type === "delayed" ? "delayed" : "delivered";
  const replyCode = delivery?.code === undefined ? undefined : String(delivery.code);
  const status = delivery?.["enhanced-code"];
  const classified = classifyRecipient({ action, ...definedFields({ status, replyCode, diagnostic }) });
  Object.assign(report, classifiedFields(classified), { action });
  if (type === "bounced") {
    // Mailgun's "permanent" counts only where the words name no reason (providerBounce).
    const verdict = { type: "Permanent" as const, subType: "General" };
    report.bounce = providerBounce(classified, verdict, diagnostic ?? classified.status ?? "");
  }
  return report;
}
