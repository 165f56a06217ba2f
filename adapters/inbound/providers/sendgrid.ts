import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { z } from "zod";
import {
  classifiedFields,
  classifyRecipient,
  clippedText,
  definedFields,
  type DeliveryReport,
  providerBounce,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "../../../src/emails/index.js";
import { FlagpostError } from "../../../src/errors.js";
import { parseInput } from "../../../src/validation.js";
import type { ReportSource, SignatureChecks } from "../../../src/ports/report-source.js";
import { systemClock } from "../../../src/ports/clock.js";
import { assertFresh, memorySignatureChecks, unixSecondsMs } from "./freshness.js";
import { invalidSignature, jsonOf, missingSignature } from "./provider-request.js";
import type { ProviderIntake } from "./provider-intake.js";

/**
 * SendGrid's signed Event Webhook: a JSON array of events, signed with ECDSA (P-256, SHA-256) over
 * the `X-Twilio-Email-Event-Webhook-Timestamp` value followed by the raw body; the signature (DER,
 * base64) is in `X-Twilio-Email-Event-Webhook-Signature`, checked against the verification key
 * SendGrid shows when signing is enabled. The signed timestamp must be within 5 minutes of now, so a
 * captured request cannot be sent again later.
 */
export interface SendGridOptions {
  /** The verification key: base64 of the DER public key, as SendGrid shows it, or PEM. */
  publicKey: string;
}

const SIGNATURE_HEADER = "x-twilio-email-event-webhook-signature";
const TIMESTAMP_HEADER = "x-twilio-email-event-webhook-timestamp";

const text = (max: number) => z.string().max(max).optional();
const eventSchema = z.looseObject({
  event: z.string().max(64),
  email: text(320),
  timestamp: z.number().optional(),
  "smtp-id": text(998),
  sg_message_id: text(255),
  type: text(32),
  status: text(32),
  reason: text(64 * 1024),
  response: text(64 * 1024),
});
const eventsSchema = z.array(eventSchema).max(10_000);

function sendgridKey(publicKey: string): KeyObject {
  const trimmed = publicKey.trim();
  let key: KeyObject;
  try {
    key = trimmed.startsWith("-----")
      ? createPublicKey(trimmed)
      : createPublicKey({ key: Buffer.from(trimmed, "base64"), format: "der", type: "spki" });
  } catch (cause) {
    throw new FlagpostError("validation_error", "The SendGrid verification key is not a public key", { cause });
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1")
    throw new FlagpostError("validation_error", "The SendGrid verification key must be an ECDSA P-256 key");
  return key;
}

/** `checks`: used when the caller passes none (a source called on its own); the HTTP layer passes its own. */
export function sendgridSource(
  options: SendGridOptions,
  ownChecks: Pick<SignatureChecks, "clock"> = memorySignatureChecks(systemClock),
): ReportSource {
  const key = sendgridKey(options.publicKey);
  return {
    name: "sendgrid",
    async receive(request, checks: Pick<SignatureChecks, "clock"> = ownChecks) {
      const signature = request.headers[SIGNATURE_HEADER]?.trim();
      const timestamp = request.headers[TIMESTAMP_HEADER]?.trim();
      if (!signature || !timestamp) throw missingSignature("SendGrid signature headers");
      const signed = Buffer.concat([Buffer.from(timestamp, "utf8"), request.body]);
      let valid: boolean;
      try {
        valid = verify("sha256", signed, key, Buffer.from(signature, "base64"));
      } catch {
        valid = false; // a signature that is not DER at all
      }
      if (!valid) throw invalidSignature("SendGrid signature");
      assertFresh("SendGrid signature", unixSecondsMs(timestamp), checks.clock);
      const events = parseInput(eventsSchema, jsonOf(request.body) ?? null);
      return events.flatMap((event) => reportOf(event) ?? []);
    },
  };
}

/** `flagpost serve`: FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY enables it. */
export const sendgridIntake: ProviderIntake = {
  name: "sendgrid",
  settings: ["FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY"],
  fromSettings(setting) {
    const publicKey = setting("FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY");
    return publicKey === undefined ? undefined : sendgridSource({ publicKey });
  },
};

/** `processed`, `open`, `click`, `unsubscribe`… are no delivery outcome. */
function typeOf(event: z.infer<typeof eventSchema>): DeliveryReport["type"] | undefined {
  if (event.event === "delivered") return "delivered";
  if (event.event === "deferred") return "delayed";
  if (event.event === "bounce" || event.event === "blocked") return "bounced";
  if (event.event === "spamreport") return "complained";
  if (event.event === "dropped") {
    // SendGrid dropped it for an address it already knows is bad, or that complained before.
    const reason = event.reason ?? "";
    if (reason.startsWith("Bounced Address") || reason.startsWith("Invalid")) return "bounced";
    if (reason.startsWith("Spam Reporting Address")) return "complained";
  }
  return undefined;
}

function reportOf(event: z.infer<typeof eventSchema>): DeliveryReport | undefined {
  const type = typeOf(event);
  if (type === undefined) return undefined;
  const report: DeliveryReport = { type, source: "sendgrid" };
  const recipient = normalRecipient(event.email);
  const messageId = normalMessageId(event["smtp-id"]);
  // sg_message_id is the id SendGrid answered the send with (X-Message-Id), plus ".filter…".
  const providerId = event.sg_message_id?.split(".", 1)[0];
  const occurredAt = isoTime(event.timestamp);
  const diagnostic = clippedText(event.reason) ?? clippedText(event.response);
  const providerMessageId = providerId || undefined; // "" is no id
  Object.assign(report, readFields({ recipient, messageId, providerMessageId, occurredAt, diagnostic }));
  if (type === "complained") {
    report.feedbackType = "abuse";
    report.reason = "feedback";
    return report;
  }
  // Classified by the same rules as a DSN, from the status and the remote server's words.
  const action = type === "bounced" ? "failed" : type === "delayed" ? "delayed" : "delivered";
  const classified = classifyRecipient({ action, ...definedFields({ status: event.status, diagnostic }) });
  Object.assign(report, classifiedFields(classified), { action });
  if (type === "bounced") {
    // "bounce" is SendGrid's hard bounce, "blocked" its soft one; a drop comes from its suppression list.
    const verdict =
      event.event === "dropped"
        ? { type: "Permanent" as const, subType: "Suppressed" }
        : event.event === "blocked" || event.type === "blocked"
          ? { type: "Transient" as const, subType: "General" }
          : { type: "Permanent" as const, subType: "General" };
    report.bounce = providerBounce(classified, verdict, diagnostic ?? classified.status ?? "");
  }
  return report;
}
