import type { KeyObject } from "node:crypto";

/**
 * The MailTransport port: hands one message to whatever delivers mail (an SMTP server, a file,
 * a provider's API) and says how it went. The outbox worker is its only caller; adapters live in
 * `adapters/` (flagpost/nodemailer wraps any nodemailer transporter). The core never imports one.
 */

export interface MailAddress {
  /** Display name, unquoted; absent when the address was given bare. */
  name?: string;
  /** `local@domain`. */
  address: string;
  /**
   * The domain of `address` in ASCII (IDNA), lower case: what Message-IDs, DKIM and the sending
   * domain's lookups use. Read with the address, once, when the email is accepted or claimed.
   */
  domain: string;
}

export interface OutgoingAttachment {
  filename: string;
  content: Uint8Array;
  /** Absent: the transport derives it from the file name. */
  contentType?: string;
}

/**
 * DKIM signing (RFC 6376) the transport applies as it writes the message: relaxed/relaxed
 * canonicalization, rsa-sha256, over `signedHeaders` (those the message has). Given as data (a
 * node:crypto key) so the core names no signing library; flagpost/nodemailer signs with it off the
 * event loop (adapters/nodemailer/dkim-signature.ts). A message that cannot be signed MUST NOT be sent.
 */
export interface DkimSigning {
  /** `d=`: the domain of the From address. */
  domainName: string;
  /** `s=`: the record is at `<keySelector>._domainkey.<domainName>`. */
  keySelector: string;
  /**
   * The RSA private key, parsed once per process: parsing a PEM costs several times the signature
   * itself (`key.export({ type: "pkcs8", format: "pem" })` gives it to a signer that wants text).
   */
  privateKey: KeyObject;
  /** Header field names to sign, in order. */
  signedHeaders: readonly string[];
}

/** One email as the transport must put it on the wire. */
export interface OutgoingMessage {
  /** The email's id. Stable across attempts. */
  id: string;
  /**
   * The Message-ID header, `<id@domain>`. The same on every attempt, so a copy sent twice (a
   * worker crashed after the server accepted it) is recognisable as one message.
   */
  messageId: string;
  /** The Date header: when the email was accepted, the same on every attempt. */
  date: Date;
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  /** Envelope recipients only: never written into the message's headers. */
  bcc: MailAddress[];
  replyTo: MailAddress[];
  /**
   * The envelope recipients (RCPT TO): to, cc and bcc, bare, in that order, without repeats
   * (compared case-insensitively), those left out of the envelope (suppressed, or settled by an
   * earlier attempt) left out. Computed once by the core (src/emails/message.ts); a transport
   * hands the message to exactly these and need not work them out again.
   */
  recipients: string[];
  subject: string;
  html?: string;
  text?: string;
  /** Extra header fields, already checked (names are tokens, values hold no line breaks). */
  headers: Record<string, string>;
  attachments: OutgoingAttachment[];
  /**
   * The SMTP envelope when it differs from the header fields: `from` is the return path (MAIL
   * FROM; the VERP address `bounces+<id>-<tag>@<host>`, the host the verified From domain's
   * return path or else the configured bounce domain), `to` the same list as `recipients`.
   * Absent: the envelope is `from` and `recipients` (to + cc + bcc).
   */
  envelope?: { from: string; to: string[] };
  /**
   * Ask the next hop for delivery status notifications (RFC 3461) where it offers the DSN
   * extension: on success, failure and delay, headers only, with `envelopeId` as ENVID (the
   * email's id, which comes back in the report's Original-Envelope-Id). Set only when a bounce
   * domain receives the reports.
   */
  dsn?: { envelopeId: string };
  /** Sign the message: set when the From domain is a verified sending domain (docs/domains.md). */
  dkim?: DkimSigning;
}

/** One recipient the receiving server refused. */
export interface RecipientRejection {
  /** The bare address, as sent in RCPT TO. */
  recipient: string;
  /** SMTP reply code (550, 450, …) when there was one. */
  code?: number;
  /** The server's reply, for people. */
  response: string;
  /** true for a permanent refusal (5xx except 503), false for a temporary one. */
  permanent: boolean;
}

export interface TransportResult {
  /**
   * `sent`: accepted for the next hop (an SMTP relay took it). `delivered`: it reached its final
   * place (a file transport wrote it); nothing else will report delivery.
   */
  status: "sent" | "delivered";
  /** The Message-ID the message carried. */
  messageId: string;
  /** Envelope recipients that were accepted. */
  accepted: string[];
  /** Envelope recipients that were refused while the others were accepted. */
  rejected: RecipientRejection[];
  /** The server's final reply or where the message went (a file path), for people. */
  response?: string;
  /**
   * The next hop's own id for the message, when it gave one that differs from `messageId`: a
   * provider API's message id, or the queue id in an SMTP server's reply (`queued as 4F1A2B`).
   * Stored with the email, so that the provider's delivery reports, which name the message by
   * this id, find it.
   */
  providerMessageId?: string;
}

export type TransportErrorKind =
  /** Trying again later can succeed: SMTP 4xx, connection refused or lost, timeouts, DNS. */
  | "transient"
  /** Trying again gets the same answer: SMTP 5xx, authentication refused, a message refused. */
  | "permanent";

export interface TransportErrorOptions {
  /** SMTP reply code, when the failure was a reply. */
  code?: number;
  /** The server's reply, when there was one. */
  response?: string;
  /** The recipients refused, each with its own reply (all of them, when none was accepted). */
  rejected?: RecipientRejection[];
  cause?: unknown;
}

/** What a transport throws when it could not hand the message on. */
export class TransportError extends Error {
  override readonly name = "TransportError";
  readonly kind: TransportErrorKind;
  readonly code: number | undefined;
  readonly response: string | undefined;
  readonly rejected: RecipientRejection[];

  constructor(kind: TransportErrorKind, message: string, options: TransportErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.code = options.code;
    this.response = options.response;
    this.rejected = options.rejected ?? [];
  }
}

export function isTransportError(error: unknown): error is TransportError {
  return error instanceof TransportError;
}

export interface MailTransport {
  /** Short name for logs ("smtp", "eml-file", …). */
  readonly name: string;
  /**
   * Sends one message. Resolves when the message was handed on (maybe with some recipients
   * refused, listed in `rejected`); MUST reject with a TransportError that says whether trying
   * again can help. Any other error is treated as transient.
   */
  send(message: OutgoingMessage): Promise<TransportResult>;
  /** Releases connections. Called by `flagpost.close()` after the worker drained. */
  close?(): Promise<void>;
}
