import type { EmailRecord } from "../ports/storage/index.js";
import type { DkimSigning, OutgoingMessage } from "../ports/transport.js";
import { asciiDomain, mailAddress } from "./addresses.js";

/**
 * The Message-ID of an email: `<id@domain of the sender>`. Derived from the id alone, so every
 * attempt (and a copy sent again after a crash) carries the same one.
 */
export function messageIdFor(id: string, from: string): string {
  return `<${id}@${asciiDomain(mailAddress(from).address)}>`;
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
 * The message the transport puts on the wire, built from the stored email. With a bounce domain
 * or recipients to omit, the envelope is given explicitly; header fields never change.
 */
export function toOutgoing(email: EmailRecord, options: EnvelopeOptions = {}): OutgoingMessage {
  const c = email.content;
  const message: OutgoingMessage = {
    id: email.id,
    messageId: email.messageId,
    date: new Date(email.createdAt),
    from: mailAddress(c.from),
    to: c.to.map(mailAddress),
    cc: (c.cc ?? []).map(mailAddress),
    bcc: (c.bcc ?? []).map(mailAddress),
    replyTo: (c.replyTo ?? []).map(mailAddress),
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
  const { bounceDomain, omit, verpTag } = options;
  if (bounceDomain !== undefined || (omit !== undefined && omit.size > 0)) {
    const to = [...message.to, ...message.cc, ...message.bcc]
      .map((a) => a.address)
      .filter((address, i, all) => {
        const key = address.toLowerCase();
        return !omit?.has(key) && all.findIndex((other) => other.toLowerCase() === key) === i;
      });
    message.envelope = { from: bounceDomain ? verpAddress(email.id, bounceDomain, verpTag) : message.from.address, to };
  }
  if (bounceDomain !== undefined) message.dsn = { envelopeId: email.id };
  if (options.dkim !== undefined) message.dkim = options.dkim;
  return message;
}

/** Every envelope recipient (the envelope's, else to, cc, bcc), bare and lower-cased, without repeats. */
export function envelopeRecipients(message: OutgoingMessage): string[] {
  const all = message.envelope?.to ?? [...message.to, ...message.cc, ...message.bcc].map((a) => a.address);
  return [...new Set(all.map((address) => address.toLowerCase()))];
}

/** Every recipient the email names (to, cc, bcc), bare and lower-cased, without repeats. */
export function emailRecipients(email: EmailRecord): string[] {
  const c = email.content;
  return [...new Set([...c.to, ...(c.cc ?? []), ...(c.bcc ?? [])].map((a) => mailAddress(a).address.toLowerCase()))];
}
