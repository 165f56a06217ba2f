import type { EmailRecord } from "../storage/index.js";
import type { OutgoingMessage } from "../transport.js";
import { asciiDomain, mailAddress } from "./addresses.js";

/**
 * The Message-ID of an email: `<id@domain of the sender>`. Derived from the id alone, so every
 * attempt (and a copy sent again after a crash) carries the same one.
 */
export function messageIdFor(id: string, from: string): string {
  return `<${id}@${asciiDomain(mailAddress(from).address)}>`;
}

/** The message the transport puts on the wire, built from the stored email. */
export function toOutgoing(email: EmailRecord): OutgoingMessage {
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
  return message;
}

/** Every envelope recipient (to, cc, bcc), bare and lower-cased, without repeats. */
export function envelopeRecipients(message: OutgoingMessage): string[] {
  return [...new Set([...message.to, ...message.cc, ...message.bcc].map((a) => a.address.toLowerCase()))];
}
