import type { DeliveryReport } from "./reports.js";

/**
 * The small readings every report source shares (DSN, ARF, SES, SendGrid, Mailgun, Postmark), so
 * each source turns its own words into a DeliveryReport the same way: one VERP reading, one normal
 * form for Message-IDs, addresses, times and the remote server's text (classification is in
 * bounce-classification.ts).
 */

/** The local part every VERP envelope sender starts with: `bounces+<email id>-<tag>@<bounce domain>`. */
export const VERP_PREFIX = "bounces+";

/**
 * An email id as flagpost writes it (a UUID), then the tag that proves the address was flagpost's
 * (src/emails/verp-tag.ts); anything else after the prefix is not ours. The tag is read whatever
 * its length, so an address with a wrong or cut tag still names the email and is refused there,
 * rather than being read as no VERP address at all.
 */
const VERP_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:-[a-z0-9]{1,32})?$/;

/**
 * The VERP key of a VERP address (`bounces+<id>-<tag>@domain`, with or without angle brackets or
 * a display name around it): `<id>-<tag>`, or `<id>` for an address without a tag; undefined when
 * the address is not a VERP address. It goes into a report's `emailId`, and the report applier
 * checks the tag. Case is folded: some relays upper-case local parts.
 */
export function emailIdFromVerp(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const text = address.toLowerCase();
  const start = text.indexOf(VERP_PREFIX);
  if (start < 0) return undefined;
  // The prefix must begin the local part: after "<", ":", a space, or at the very start.
  if (start > 0 && !"<: \t,;".includes(text[start - 1]!)) return undefined;
  const at = text.indexOf("@", start);
  if (at < 0) return undefined;
  const key = text.slice(start + VERP_PREFIX.length, at);
  return VERP_KEY.test(key) ? key : undefined;
}

/** The first VERP key among `addresses`, in the order given (best source first). */
export function firstVerpId(addresses: (string | undefined)[]): string | undefined {
  for (const address of addresses) {
    const id = emailIdFromVerp(address);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** A Message-ID with its angle brackets, as flagpost writes it in the header; undefined when unusable. */
export function normalMessageId(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const open = text.indexOf("<");
  const close = text.indexOf(">", open + 1);
  const bare = open >= 0 && close > open ? text.slice(open + 1, close).trim() : text;
  if (bare.length === 0 || bare.length > 998 || /[\s<>\u0000-\u001f\u007f]/.test(bare)) return undefined;
  return `<${bare}>`;
}

/** A bare address, lower-cased: `<Ann@Example.org>`, `rfc822; ann@example.org` → `ann@example.org`. */
export function normalRecipient(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let text = value.trim();
  const semicolon = text.indexOf(";");
  // An address type (RFC 3464 `rfc822;`, RFC 6533 `utf-8;`) comes before the first semicolon.
  if (semicolon > 0 && !text.slice(0, semicolon).includes("@")) text = text.slice(semicolon + 1).trim();
  const open = text.lastIndexOf("<");
  const close = text.indexOf(">", open + 1);
  if (open >= 0 && close > open) text = text.slice(open + 1, close).trim();
  const at = text.lastIndexOf("@");
  // A file or program "recipient" (Exim's `/var/mail/x`, `|procmail`) is no address to suppress.
  if (at <= 0 || at === text.length - 1 || text.length > 320 || /[\s"<>()\\,;:\u0000-\u001f]/.test(text)) {
    return undefined;
  }
  return text.toLowerCase();
}

/** The enhanced status code (`5.1.1`) at the start of `value` (RFC 3463), or undefined. */
export function enhancedStatus(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = /(?:^|[\s;(-])([245])\.(\d{1,3})\.(\d{1,3})(?=$|[\s;),.])/.exec(` ${value.trim()}`);
  return match ? `${match[1]}.${match[2]}.${match[3]}` : undefined;
}

const MAX_DIAGNOSTIC = 1024;

/** The remote server's words on one line, at most 1 KiB (a DSN's Diagnostic-Code, a provider's reason). */
export function clippedText(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.replace(/\s+/g, " ").trim();
  if (text.length === 0) return undefined;
  return text.length <= MAX_DIAGNOSTIC ? text : `${text.slice(0, MAX_DIAGNOSTIC - 1)}…`;
}

/** ISO-8601 UTC of a date a report gives (RFC 5322 date, ISO text, epoch seconds), or undefined. */
export function isoTime(value: string | number | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms =
    value instanceof Date ? value.getTime() : typeof value === "number" ? value * 1000 : Date.parse(value.trim());
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) return undefined;
  return new Date(ms).toISOString();
}

/** The fields a report source read, without those it could not: a report carries no `undefined`. */
export function readFields<T extends Partial<DeliveryReport>>(fields: T): Partial<DeliveryReport> {
  const out: Partial<DeliveryReport> = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) Object.assign(out, { [name]: value });
  return out;
}
