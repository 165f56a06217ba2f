import { z } from "zod";
import { type GivenAddress, givenAddress } from "./addresses.js";
import { instantSchema } from "./instants.js";

/**
 * The wire shape of a send request (docs/api.md, "Emails"), snake_case as Resend's REST API, used as is
 * by `fp.emails.send()` too. Limits docs/api.md leaves open are decided here and written down in
 * docs/emails.md.
 */

export const MAX_RECIPIENTS = 50;
export const MAX_REPLY_TO = 50;
export const MAX_SUBJECT = 998;
export const MAX_HEADERS = 50;
export const MAX_HEADER_VALUE = 998;
export const MAX_TAGS = 50;
export const MAX_ATTACHMENTS = 100;
/** Decoded bytes of all attachments of one email: 30 MiB, about 40 MiB as base64 (the route's body limit). */
export const MAX_ATTACHMENT_BYTES = 30 * 1024 * 1024;
export const MAX_BATCH = 100;

export const ADDRESS_RULE = 'must be an email address such as "ann@example.com" or "Ann <ann@example.com>"';

/**
 * Header fields flagpost writes itself: setting them through `headers` could contradict the
 * fields of the request or break the message's structure, so they are refused.
 */
export const RESERVED_HEADERS = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "sender",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-disposition",
]);

/** RFC 5322 field name: printable ASCII without ":". */
const HEADER_NAME = /^[!-9;-~]{1,76}$/;
const LINE_BREAK = /[\r\n]/;
// Control characters other than tab.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;.{0,1000})?$/;

/**
 * Base64 as the contract takes it: A-Z a-z 0-9 + /, padded with = to a multiple of 4. The usual
 * text is recognised by decoding it, 64 Ki characters at a time into one small buffer, and
 * counting the bytes: Node's decoder skips characters outside the alphabet and stops at an early
 * "=", so anything else yields fewer bytes than the length promises. What the decoder takes
 * beside the contract's alphabet is refused first: "-" and "_" (base64url), and characters above
 * U+007F (it reads only their low byte). The pattern decides the rest. Decoding a 39 MiB
 * attachment whole and encoding it again held the event loop 100–480 ms per body under load and
 * left 22 MiB of bytes and 29 MiB of text behind; this takes a few ms and allocates nothing large.
 */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  return decodesWhole(text) || BASE64.test(text);
}

const BASE64_STEP = 64 * 1024; // characters per decoding step, a multiple of 4
const decoded = Buffer.allocUnsafe((BASE64_STEP / 4) * 3);

function decodesWhole(text: string): boolean {
  if (text.includes("-") || text.includes("_")) return false;
  let bytes = 0;
  for (let start = 0; start < text.length; start += BASE64_STEP) {
    const part = text.slice(start, start + BASE64_STEP);
    if (Buffer.byteLength(part, "utf8") !== part.length) return false; // not ASCII
    bytes += decoded.write(part, "base64");
  }
  return bytes === base64Size(text);
}

/** Bytes that a valid base64 string decodes to. */
export function base64Size(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/**
 * An address or a list of them. A single string is one address; null or absent is none.
 * Output: each address read once (its trimmed text and its parsed form, src/emails/addresses.ts).
 * `In` is the type callers see (`z.input`); the value itself is checked in the transform, which
 * words each problem better than a union would.
 */
function addressList<In extends string | string[] | null>(options: { required: boolean; max: number }) {
  return z.custom<In>().transform((value: unknown, ctx): GivenAddress[] | undefined => {
    if (value === undefined || value === null) {
      if (options.required) ctx.addIssue({ code: "custom", message: "is required" });
      return undefined;
    }
    const list = typeof value === "string" ? [value] : value;
    if (!Array.isArray(list)) {
      ctx.addIssue({ code: "custom", message: "must be an address or an array of addresses" });
      return undefined;
    }
    const min = options.required ? 1 : 0;
    if (list.length < min || list.length > options.max) {
      ctx.addIssue({ code: "custom", message: `must hold ${min} to ${options.max} addresses` });
      return undefined;
    }
    const given: GivenAddress[] = [];
    list.forEach((item, index) => {
      const address = typeof item === "string" ? givenAddress(item) : undefined;
      if (address !== undefined) given.push(address);
      else ctx.addIssue({ code: "custom", message: ADDRESS_RULE, path: typeof value === "string" ? [] : [index] });
    });
    return given.length === list.length ? given : undefined;
  });
}

/** One address, read once: its trimmed text and its parsed form. */
const singleAddress = z.string().transform((text, ctx): GivenAddress => {
  const address = givenAddress(text);
  if (address !== undefined) return address;
  ctx.addIssue({ code: "custom", message: ADDRESS_RULE });
  return z.NEVER;
});

const headersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > MAX_HEADERS) ctx.addIssue({ code: "custom", message: `must hold at most ${MAX_HEADERS} fields` });
  const seen = new Set<string>();
  for (const name of names) {
    const value = headers[name]!;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) {
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: "is not a valid header name (printable ASCII without spaces or colons, at most 76 characters)",
      });
    } else if (RESERVED_HEADERS.has(lower)) {
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: "is set by flagpost from the request's own fields and cannot be given as a header",
      });
    } else if (seen.has(lower)) {
      ctx.addIssue({ code: "custom", path: [name], message: "is given twice (header names are case-insensitive)" });
    }
    seen.add(lower);
    if (LINE_BREAK.test(value) || CONTROL.test(value))
      ctx.addIssue({ code: "custom", path: [name], message: "must not contain line breaks or control characters" });
    else if (value.length > MAX_HEADER_VALUE)
      ctx.addIssue({ code: "custom", path: [name], message: `must be at most ${MAX_HEADER_VALUE} characters` });
  }
});

const tagSchema = z.strictObject({
  name: z.string().regex(TAG_PART, { error: "must be 1 to 256 characters of A-Z a-z 0-9 _ -" }),
  value: z.string().regex(TAG_PART, { error: "must be 1 to 256 characters of A-Z a-z 0-9 _ -" }),
});

const attachmentSchema = z.strictObject({
  filename: z
    .string()
    .min(1)
    .max(255)
    .refine((name) => !CONTROL.test(name) && !/[/\\]/.test(name), {
      error: "must be a file name without slashes or control characters",
    }),
  content: z.string().refine(isBase64, {
    error: "must be base64 (A-Z a-z 0-9 + /, padded with =)",
  }),
  content_type: z
    .string()
    .regex(MEDIA_TYPE, { error: 'must be a media type such as "application/pdf"' })
    .refine((type) => !LINE_BREAK.test(type), { error: "must not contain line breaks" })
    .nullish(),
});

/** Longest `unsubscribe` URL: with its angle brackets it fits one header line (998 characters). */
export const MAX_UNSUBSCRIBE_URL = 900;

/**
 * `unsubscribe`: `true` for flagpost's own one-click link, or the sender's own `https:` (one-click)
 * or `mailto:` link; `false`/null/absent for none (docs/emails.md, "One-click unsubscribe").
 */
const unsubscribeSchema = z.union(
  [
    z.boolean(),
    z
      .string()
      .max(MAX_UNSUBSCRIBE_URL)
      .refine((url) => !LINE_BREAK.test(url) && !CONTROL.test(url) && !/[\s<>]/.test(url) && URL.canParse(url), {
        error: "must be true or an https: or mailto: URL",
      })
      .refine((url) => ["https:", "mailto:"].includes(new URL(url).protocol), {
        error: "must be true or an https: or mailto: URL",
      }),
  ],
  { error: "must be true or an https: or mailto: URL" },
);

/** The header fields `unsubscribe` writes: the request cannot give them as well. */
export const UNSUBSCRIBE_HEADERS = ["list-unsubscribe", "list-unsubscribe-post"];

export const sendEmailSchema = z
  .strictObject({
    from: singleAddress,
    to: addressList<string | string[]>({ required: true, max: MAX_RECIPIENTS }),
    cc: addressList<string | string[] | null>({ required: false, max: MAX_RECIPIENTS }).optional(),
    bcc: addressList<string | string[] | null>({ required: false, max: MAX_RECIPIENTS }).optional(),
    reply_to: addressList<string | string[] | null>({ required: false, max: MAX_REPLY_TO }).optional(),
    subject: z
      .string()
      .min(1)
      .max(MAX_SUBJECT)
      .refine((s) => !LINE_BREAK.test(s), { error: "must not contain line breaks" }),
    html: z.string().nullish(),
    text: z.string().nullish(),
    headers: headersSchema.nullish(),
    tags: z.array(tagSchema).max(MAX_TAGS).nullish(),
    attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).nullish(),
    scheduled_at: instantSchema.nullish(),
    unsubscribe: unsubscribeSchema.nullish(),
  })
  .superRefine((email, ctx) => {
    if (!email.html && !email.text)
      ctx.addIssue({
        code: "custom",
        path: ["html"],
        message: 'is required when "text" is missing (give html, text or both)',
      });
    const count = (email.to?.length ?? 0) + (email.cc?.length ?? 0) + (email.bcc?.length ?? 0);
    if (count > MAX_RECIPIENTS) {
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: `together with "cc" and "bcc" must hold at most ${MAX_RECIPIENTS} addresses (got ${count})`,
      });
    }
    if (email.unsubscribe) {
      const given = Object.keys(email.headers ?? {}).find((name) => UNSUBSCRIBE_HEADERS.includes(name.toLowerCase()));
      if (given !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["unsubscribe"],
          message: `cannot be combined with a "${given}" header (unsubscribe writes it)`,
        });
      // One message carries one link: with several recipients, any of them could unsubscribe the others.
      if (email.unsubscribe === true && count !== 1)
        ctx.addIssue({
          code: "custom",
          path: ["unsubscribe"],
          message: `true needs exactly one recipient in "to", "cc" and "bcc" together (got ${count}); send one email per recipient`,
        });
    }
    const bytes = (email.attachments ?? []).reduce((sum, a) => sum + base64Size(a.content), 0);
    if (bytes > MAX_ATTACHMENT_BYTES) {
      ctx.addIssue({
        code: "custom",
        path: ["attachments"],
        message: `must hold at most ${MAX_ATTACHMENT_BYTES} bytes in all once decoded (got ${bytes})`,
      });
    }
  });

/** What `send` accepts (the JSON body of POST /v1/emails), as the schema reads it. */
export type SendEmailRequest = z.input<typeof sendEmailSchema>;

export type ParsedSendRequest = z.output<typeof sendEmailSchema>;

export const EXTERNAL_EVENT_TYPES = ["delivered", "bounced", "complained", "failed"] as const;
export type ExternalEventType = (typeof EXTERNAL_EVENT_TYPES)[number];

/** A delivery report from outside (POST /v1/emails/{id}/events). */
export const emailEventSchema = z.strictObject({
  type: z.enum(EXTERNAL_EVENT_TYPES),
  occurred_at: instantSchema.nullish(),
  detail: z
    .union([z.string(), z.record(z.string(), z.unknown())], {
      error: "must be an object or a string",
    })
    .refine((d) => JSON.stringify(d).length <= 32 * 1024, { error: "must be at most 32 KiB as JSON" })
    .nullish(),
});

/** What `recordEvent` accepts (the JSON body of POST /v1/emails/{id}/events). */
export type EmailEventRequest = z.input<typeof emailEventSchema>;

export const BATCH_VALIDATION_MODES = ["strict", "permissive"] as const;
export type BatchValidation = (typeof BATCH_VALIDATION_MODES)[number];
