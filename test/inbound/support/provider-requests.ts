import { createHmac, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { selfSignedCertificate, type TestCertificate } from "../../support/self-signed-cert.js";

/**
 * Requests as each provider sends them, signed the provider's way with keys made here: Amazon
 * SNS (RSA, certificate at an sns.<region>.amazonaws.com URL), SendGrid (ECDSA P-256), Mailgun
 * (HMAC-SHA256), Postmark (Basic credentials).
 */
export interface SignedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

export const REGION = "eu-west-1";
export const TOPIC_ARN = `arn:aws:sns:${REGION}:123456789012:ses-notifications`;
export const CERT_URL = `https://sns.${REGION}.amazonaws.com/SimpleNotificationService-6209c161c6221fdf56ec1eb5c821d112.pem`;

/** Plays SNS: a certificate, and a fetch that serves it (and records every URL asked for). */
export function fakeSns() {
  const certificate: TestCertificate = selfSignedCertificate("sns.amazonaws.com");
  const fetched: string[] = [];
  const fetch = async (url: string) => {
    fetched.push(url);
    if (url === CERT_URL) return new Response(certificate.pem);
    if (url.startsWith(`https://sns.${REGION}.amazonaws.com/?Action=ConfirmSubscription`))
      return new Response("<ConfirmSubscriptionResponse/>");
    return new Response("not found", { status: 404 });
  };
  return { certificate, fetched, fetch };
}

export interface SnsFields {
  Type?: "Notification" | "SubscriptionConfirmation" | "UnsubscribeConfirmation";
  Message: string;
  Subject?: string;
  TopicArn?: string;
  SigningCertURL?: string;
  SignatureVersion?: "1" | "2";
  SubscribeURL?: string;
  Token?: string;
  /** When SNS signed it: now unless given. */
  Timestamp?: string;
}

/** An SNS HTTP(S) delivery: the JSON body AWS posts (as text/plain), signed with `key`. */
export function snsRequest(key: KeyObject, fields: SnsFields): SignedRequest {
  const message: Record<string, string> = {
    Type: fields.Type ?? "Notification",
    MessageId: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
    TopicArn: fields.TopicArn ?? TOPIC_ARN,
    Message: fields.Message,
    Timestamp: fields.Timestamp ?? new Date().toISOString(),
    SignatureVersion: fields.SignatureVersion ?? "1",
    SigningCertURL: fields.SigningCertURL ?? CERT_URL,
  };
  if (fields.Subject !== undefined) message.Subject = fields.Subject;
  if (fields.SubscribeURL !== undefined) message.SubscribeURL = fields.SubscribeURL;
  if (fields.Token !== undefined) message.Token = fields.Token;
  const names =
    message.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  const signed = names
    .filter((n) => message[n] !== undefined)
    .map((n) => `${n}\n${message[n]}\n`)
    .join("");
  message.Signature = sign(
    message.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256",
    Buffer.from(signed),
    key,
  ).toString("base64");
  return {
    headers: { "content-type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": message.Type! },
    body: Buffer.from(JSON.stringify(message)),
  };
}

/** SendGrid's key pair: the verification key as SendGrid shows it (base64 DER). */
export function sendgridKeys() {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return { privateKey, verificationKey: publicKey.export({ type: "spki", format: "der" }).toString("base64") };
}

/** Unix seconds now, as the providers write their signed timestamps. */
export const unixNow = (offsetMs = 0) => String(Math.floor((Date.now() + offsetMs) / 1000));

export function sendgridRequest(privateKey: KeyObject, events: unknown[], timestamp = unixNow()): SignedRequest {
  const body = Buffer.from(JSON.stringify(events));
  const signature = sign("sha256", Buffer.concat([Buffer.from(timestamp), body]), privateKey).toString("base64");
  return {
    headers: {
      "content-type": "application/json",
      "x-twilio-email-event-webhook-signature": signature,
      "x-twilio-email-event-webhook-timestamp": timestamp,
    },
    body,
  };
}

export function mailgunRequest(
  signingKey: string,
  eventData: unknown,
  { timestamp = unixNow(), token = randomBytes(25).toString("hex") } = {},
): SignedRequest {
  const signature = createHmac("sha256", signingKey)
    .update(timestamp + token)
    .digest("hex");
  return {
    headers: { "content-type": "application/json" },
    body: Buffer.from(JSON.stringify({ signature: { timestamp, token, signature }, "event-data": eventData })),
  };
}

export function postmarkRequest(user: string, password: string, record: unknown): SignedRequest {
  return {
    headers: {
      "content-type": "application/json",
      authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
    },
    body: Buffer.from(JSON.stringify(record)),
  };
}
