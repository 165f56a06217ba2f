import { normalMessageId } from "../../src/emails/index.js";

/**
 * The next hop's own id for a message, so that its reports can be matched to the email
 * (docs/emails.md, "Matching reports"): what a provider transporter returned as `messageId` when
 * it is not the Message-ID flagpost set (SES's API transport, say), else the id in the SMTP
 * server's final reply: Postfix's `250 2.0.0 Ok: queued as 4F1A2B3C4D`, Exim's `250 OK id=1uQ2cD-000ABC-1x`,
 * SES's SMTP interface `250 Ok 0100018f0a1b2c3d-…-000000`. The patterns are fixed and the reply
 * is cut to 512 characters first.
 */
const PATTERNS = [
  /\bqueued as ([A-Za-z0-9]{5,64})\b/,
  /\bid=([A-Za-z0-9]{6}-[A-Za-z0-9]{6,11}-[A-Za-z0-9]{2,4})\b/,
  /^250 Ok ([0-9a-f]{16}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]{6})\s*$/,
];

export function providerMessageIdOf(
  ownMessageId: string,
  returnedMessageId: string | undefined,
  reply: string | undefined,
): string | undefined {
  // Both in the one normal form of a Message-ID (report-fields.ts), so flagpost's own, returned
  // with other spacing, is not taken for the provider's.
  const returned = normalMessageId(returnedMessageId);
  if (returned !== undefined && returned !== normalMessageId(ownMessageId)) return returned.slice(1, -1).slice(0, 255);
  const text = reply?.slice(0, 512);
  if (text === undefined) return undefined;
  for (const pattern of PATTERNS) {
    const match = pattern.exec(text);
    if (match) return match[1];
  }
  return undefined;
}
