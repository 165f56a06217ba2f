import { createHmac, randomBytes } from "node:crypto";
import type { WebhookRecord } from "../ports/storage/index.js";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com), which the resend SDK's
 * `webhooks.verify` and the `standardwebhooks` package check: a secret `whsec_` + base64 of random
 * bytes, and per delivery the headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 over "id.timestamp.body">`. While a rotated-out
 * secret still signs, the header carries both signatures, space-separated, the current one first.
 */

const PREFIX = "whsec_";
/** 24 random bytes (192 bits): the size Standard Webhooks' own libraries generate. */
const SECRET_BYTES = 24;

/** A fresh signing secret. */
export function newSigningSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** `v1,<signature>` of one message with one secret. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** The secrets that sign at `nowMs`: the current one, and the previous one until it expires. */
export function signingSecrets(webhook: WebhookRecord, nowMs: number): string[] {
  const { previousSecret, previousSecretExpiresAt } = webhook;
  const previousValid =
    previousSecret !== undefined && previousSecretExpiresAt !== undefined && previousSecretExpiresAt > nowMs;
  return previousValid ? [webhook.secret, previousSecret] : [webhook.secret];
}

/** The request headers of one delivery of `body` (the event `eventId`) to `webhook`, signed at `nowMs`. */
export function signedHeaders(
  webhook: WebhookRecord,
  eventId: string,
  body: string,
  nowMs: number,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "flagpost-webhooks",
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signingSecrets(webhook, nowMs)
      .map((secret) => signatureOf(secret, eventId, timestamp, body))
      .join(" "),
  };
}
