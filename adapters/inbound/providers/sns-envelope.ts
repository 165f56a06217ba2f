import { type KeyObject, verify, X509Certificate } from "node:crypto";
import { z } from "zod";
import { type Clock, systemClock } from "../../../src/ports/clock.js";
import { FlagpostError } from "../../../src/errors.js";
import { assertFresh } from "./freshness.js";
import { invalidSignature, jsonOf, missingSignature } from "./provider-request.js";

/**
 * Amazon SNS's HTTPS delivery, verified as AWS documents it: the signing certificate is fetched
 * only from `https://sns.<region>.amazonaws.com[.cn]/…pem` for the topic's own region (an attacker
 * cannot point us at a certificate of theirs), cached (a failure for a minute; at most 10 fetches a
 * minute in all, so forged requests naming a new certificate each time cannot make us fetch on
 * demand), and used to check the RSA signature over
 * the message's fields (SignatureVersion 1: SHA-1, 2: SHA-256). Only configured topics are
 * accepted: any AWS account can create a topic and sign with SNS's certificate. The signed
 * `Timestamp` must be within 5 minutes of now, so a captured message cannot be replayed later.
 */

/** How flagpost fetches over HTTPS: globalThis.fetch by default; tests pass their own. */
export type Fetch = (url: string, init: { signal: AbortSignal }) => Promise<Pick<Response, "ok" | "status" | "text">>;

export interface SnsOptions {
  /** The topic ARNs whose notifications are accepted (`arn:aws:sns:eu-west-1:123456789012:ses-bounces`). */
  topicArns: readonly string[];
  fetch?: Fetch;
  /** The clock the signed `Timestamp` is judged by; the system's by default. */
  clock?: Clock;
}

const text = (max: number) => z.string().max(max);
const envelopeSchema = z.looseObject({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: text(256),
  TopicArn: text(512),
  Subject: text(1024).optional(),
  Message: text(512 * 1024),
  Timestamp: text(64),
  SignatureVersion: z.enum(["1", "2"]),
  Signature: text(4096),
  SigningCertURL: text(2048),
  SubscribeURL: text(4096).optional(),
  Token: text(4096).optional(),
});
export type SnsEnvelope = z.infer<typeof envelopeSchema>;

const SNS_HOST = /^sns\.([a-z0-9-]{1,40})\.amazonaws\.com(?:\.cn)?$/;
const TOPIC_ARN = /^arn:aws(?:-[a-z-]+)?:sns:([a-z0-9-]{1,40}):\d{12}:[A-Za-z0-9_.-]{1,256}$/;
const CERT_CACHE_MAX = 50;
const FETCH_TIMEOUT_MS = 10_000;
/** A certificate URL that could not be fetched or read is not asked again for this long. */
const FAILURE_MEMORY_MS = 60_000;
const FAILURE_CACHE_MAX = 1_000;
/** Certificate fetches per minute, whatever the URLs: forged requests cannot make us fetch on demand. */
const FETCHES_PER_MINUTE = 10;

/** An SNS URL we may fetch: https, SNS's host in `region`, no credentials or odd port. */
export function snsUrl(value: string | undefined, region: string): URL | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const host = SNS_HOST.exec(url.hostname);
  if (url.protocol !== "https:" || !host || host[1] !== region || url.port !== "" || url.username || url.password)
    return undefined;
  return url;
}

/** The fields SNS signs, in its order, each as `Name\nvalue\n`. */
function stringToSign(envelope: SnsEnvelope): string {
  const names =
    envelope.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  let out = "";
  for (const name of names) {
    const value = envelope[name as keyof SnsEnvelope];
    if (typeof value === "string") out += `${name}\n${value}\n`;
  }
  return out;
}

export class SnsVerifier {
  readonly #topics: Set<string>;
  readonly #fetch: Fetch;
  readonly #clock: Clock;
  readonly #keys = new Map<string, Promise<KeyObject>>();
  /** URLs whose fetch failed, with the error to answer until `until`. */
  readonly #failed = new Map<string, { error: unknown; until: number }>();
  /** Start of the current minute's window and the fetches made in it. */
  #window = { start: 0, fetches: 0 };

  constructor(options: SnsOptions) {
    this.#topics = new Set(options.topicArns);
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#clock = options.clock ?? systemClock;
  }

  /** The verified envelope of a request body; throws missing_/invalid_signature, or unavailable when AWS is unreachable. */
  async verify(body: Uint8Array, clock: Clock = this.#clock): Promise<SnsEnvelope> {
    const json = jsonOf(body) as Record<string, unknown> | undefined;
    if (typeof json?.Signature !== "string" || typeof json.SigningCertURL !== "string")
      throw missingSignature("SNS signature");
    const parsed = envelopeSchema.safeParse(json);
    if (!parsed.success) throw invalidSignature("SNS message", "its signed fields are incomplete");
    const envelope = parsed.data;
    const region = TOPIC_ARN.exec(envelope.TopicArn)?.[1];
    if (region === undefined || !this.#topics.has(envelope.TopicArn))
      throw invalidSignature(
        "SNS message",
        `its topic ${JSON.stringify(envelope.TopicArn)} is not one this server accepts`,
      );
    const certUrl = snsUrl(envelope.SigningCertURL, region);
    if (certUrl === undefined || !certUrl.pathname.endsWith(".pem"))
      throw invalidSignature("SNS message", "its SigningCertURL is not an SNS certificate of the topic's region");
    // Before the certificate: a stale message is refused without fetching anything.
    assertFresh("SNS signature", Date.parse(envelope.Timestamp), clock);
    const key = await this.#key(certUrl.href);
    const algorithm = envelope.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256";
    let valid: boolean;
    try {
      valid = verify(
        algorithm,
        Buffer.from(stringToSign(envelope), "utf8"),
        key,
        Buffer.from(envelope.Signature, "base64"),
      );
    } catch {
      valid = false;
    }
    if (!valid) throw invalidSignature("SNS signature");
    return envelope;
  }

  /** Confirms a subscription by visiting its SubscribeURL (checked like the certificate's). */
  async confirm(envelope: SnsEnvelope): Promise<void> {
    const region = TOPIC_ARN.exec(envelope.TopicArn)?.[1] ?? "";
    const url = snsUrl(envelope.SubscribeURL, region);
    if (url === undefined)
      throw new FlagpostError("validation_error", "The SubscribeURL is not an SNS URL of the topic's region");
    const response = await this.#get(url.href);
    if (!response.ok)
      throw new FlagpostError("unavailable", `SNS refused the subscription confirmation (${response.status})`);
  }

  #key(url: string): Promise<KeyObject> {
    const cached = this.#keys.get(url);
    if (cached !== undefined) return cached;
    const now = this.#clock.now();
    const failed = this.#failed.get(url);
    if (failed !== undefined && failed.until > now) return Promise.reject(failed.error);
    if (now - this.#window.start >= 60_000) this.#window = { start: now, fetches: 0 };
    if (this.#window.fetches >= FETCHES_PER_MINUTE)
      return Promise.reject(
        new FlagpostError("unavailable", "Too many SNS signing certificates were fetched this minute; try again later"),
      );
    this.#window.fetches += 1;
    if (this.#keys.size >= CERT_CACHE_MAX) this.#keys.clear();
    const key = this.#loadKey(url);
    this.#keys.set(url, key);
    // A failure is remembered for a minute, not for good: AWS may have been briefly unreachable.
    key.catch((error: unknown) => {
      this.#keys.delete(url);
      if (this.#failed.size >= FAILURE_CACHE_MAX) this.#failed.clear();
      this.#failed.set(url, { error, until: this.#clock.now() + FAILURE_MEMORY_MS });
    });
    return key;
  }

  async #loadKey(url: string): Promise<KeyObject> {
    const response = await this.#get(url);
    if (!response.ok)
      throw new FlagpostError("unavailable", `The SNS signing certificate could not be fetched (${response.status})`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(await response.text());
    } catch (cause) {
      throw new FlagpostError("unavailable", "The SNS signing certificate could not be read", { cause });
    }
    const now = Date.now();
    if (Date.parse(certificate.validFrom) > now || Date.parse(certificate.validTo) < now)
      throw invalidSignature("SNS signing certificate (it is expired or not yet valid)");
    return certificate.publicKey;
  }

  async #get(url: string) {
    try {
      return await this.#fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (cause) {
      throw new FlagpostError("unavailable", "Amazon SNS could not be reached", { cause });
    }
  }
}
