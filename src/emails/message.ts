import type { EmailContent, EmailRecord } from "../ports/storage/index.js";
import type { DkimSigning, MailAddress, OutgoingMessage } from "../ports/transport.js";
import { mailAddress } from "./addresses.js";

/**
 * The Message-ID of an email: `<id@domain of the sender>`. Derived from the id alone, so every
 * attempt (and a copy sent again after a crash) carries the same one.
 */
export function messageIdFor(id: string, from: MailAddress): string {
  return `<${id}@${from.domain}>`;
}

/** The addresses of a stored email, parsed: read once per claimed email, then carried to every use. */
export interface EmailAddresses {
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  bcc: MailAddress[];
  replyTo: MailAddress[];
}

/** The stored address texts parsed (they were accepted at send(), so each parses). */
export function addressesOf(content: EmailContent): EmailAddresses {
  return {
    from: mailAddress(content.from),
    to: content.to.map(mailAddress),
    cc: (content.cc ?? []).map(mailAddress),
    bcc: (content.bcc ?? []).map(mailAddress),
    replyTo: (content.replyTo ?? []).map(mailAddress),
  };
}

/**
 * The envelope recipients (RCPT TO), the one place they are worked out: to, cc and bcc, bare, in
 * that order, the first of each repeat kept (compared case-insensitively), without those in
 * `omit` (lower-cased).
 */
export function envelopeRecipients(
  addresses: Pick<EmailAddresses, "to" | "cc" | "bcc">,
  omit?: ReadonlySet<string>,
): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of [addresses.to, addresses.cc, addresses.bcc])
    for (const { address } of list) {
      const key = address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      if (!omit?.has(key)) out.push(address);
    }
  return out;
}

export interface EnvelopeOptions {
  /** With a bounce domain: return path `bounces+<id>-<tag>@<domain>` (VERP) and a DSN request. */
  bounceDomain?: string;
  /** The VERP tag of the email (src/emails/verp-tag.ts); without one the return path has none. */
  verpTag?: string;
  /** Lower-cased addresses left out of the envelope (suppressed). */
  omit?: ReadonlySet<string>;
  /** Sign with this key (the From domain is verified). */
  dkim?: DkimSigning;
}

/** The VERP return path of an email: replies about it (DSNs) name it by its id and tag. */
export function verpAddress(id: string, bounceDomain: string, tag?: string): string {
  return `bounces+${id}${tag === undefined ? "" : `-${tag}`}@${bounceDomain}`;
}

/**
 * The message the transport puts on the wire, built from the stored email and its addresses as
 * parsed once for this attempt. With a bounce domain or recipients to omit, the envelope is given
 * explicitly; header fields never change.
 */
export function toOutgoing(
  email: EmailRecord,
  addresses: EmailAddresses,
  options: EnvelopeOptions = {},
): OutgoingMessage {
  const c = email.content;
  const { bounceDomain, omit, verpTag } = options;
  const message: OutgoingMessage = {
    id: email.id,
    messageId: email.messageId,
    date: new Date(email.createdAt),
    ...addresses,
    recipients: envelopeRecipients(addresses, omit),
    subject: c.subject,
    headers: { ...c.headers },
    attachments: (c.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content, "base64"),
      ...(a.contentType === undefined ? {} : { contentType: a.contentType }),
    })),
  };
  if (c.html !== undefined) message.html = c.html;
  if (c.text !== undefined) message.text = c.text;
  if (bounceDomain !== undefined || (omit !== undefined && omit.size > 0)) {
    const from = bounceDomain ? verpAddress(email.id, bounceDomain, verpTag) : message.from.address;
    message.envelope = { from, to: message.recipients };
  }
  if (bounceDomain !== undefined) message.dsn = { envelopeId: email.id };
  if (options.dkim !== undefined) message.dkim = options.dkim;
  return message;
}

/** Every recipient the email names (to, cc, bcc), bare and lower-cased, without repeats. */
export function emailRecipients(email: EmailRecord): string[] {
  return envelopeRecipients(addressesOf(email.content)).map((address) => address.toLowerCase());
}
