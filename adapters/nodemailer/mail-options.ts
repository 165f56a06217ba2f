import type { SendMailOptions } from "nodemailer";
import type { MailAddress, OutgoingMessage } from "../../src/ports/transport.js";
import { signedMailOptions } from "./signed-mail.js";
import { checkedSigningThreads } from "./signing-place.js";

/** Always a pair (name "" when there is none): a bare string would go through nodemailer's address parser again. */
function address(a: MailAddress): { name: string; address: string } {
  return { name: a.name ?? "", address: a.address };
}

/**
 * The nodemailer message for an outgoing email. Addresses go in as name/address pairs, never as
 * strings nodemailer would parse again. Bcc recipients are in the envelope only (nodemailer
 * leaves the Bcc header out). File and URL access are off: contents are given inline. A message
 * with `dkim` comes back composed and signed, as `raw` (signed-mail.ts), so that the RSA signature
 * runs off the event loop, in up to `signingThreads` threads (default: one per spare core; 0: on
 * libuv's pool, see docs/domains.md "Signing"); it rejects when the message cannot be signed.
 */
export async function toMailOptions(message: OutgoingMessage, signingThreads?: number): Promise<SendMailOptions> {
  const options = unsignedMailOptions(message);
  return message.dkim ? signedMailOptions(options, message.dkim, checkedSigningThreads(signingThreads)) : options;
}

/** The nodemailer message for an outgoing email, without its signature (`dkim` is not looked at). */
export function unsignedMailOptions(message: OutgoingMessage): SendMailOptions {
  const options: SendMailOptions = {
    messageId: message.messageId,
    date: message.date,
    from: address(message.from),
    to: message.to.map(address),
    subject: message.subject,
    headers: { ...message.headers },
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  if (message.cc.length > 0) options.cc = message.cc.map(address);
  if (message.bcc.length > 0) options.bcc = message.bcc.map(address);
  if (message.replyTo.length > 0) options.replyTo = message.replyTo.map(address);
  if (message.html !== undefined) options.html = message.html;
  if (message.text !== undefined) options.text = message.text;
  if (message.envelope) options.envelope = { from: message.envelope.from, to: [...message.envelope.to] };
  // nodemailer adds the parameters only when the server's EHLO answer lists DSN.
  if (message.dsn)
    options.dsn = { id: message.dsn.envelopeId, return: "headers", notify: ["success", "failure", "delay"] };
  if (message.attachments.length > 0) {
    options.attachments = message.attachments.map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
      ...(a.contentType === undefined ? {} : { contentType: a.contentType }),
    }));
  }
  return options;
}
