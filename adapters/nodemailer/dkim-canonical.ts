/**
 * RFC 6376 "relaxed" canonicalization of a message's header fields (§3.4.2) and body (§3.4.4).
 * The message is handled as latin1 text, one character per byte, so UTF-8 and other 8-bit bytes
 * pass through unchanged and hash as the bytes that go on the wire.
 */

/** A message split at its first empty line: the header block (without that line) and the body. */
export interface SplitMessage {
  header: string;
  body: string;
}

export function splitMessage(raw: Buffer): SplitMessage {
  const text = raw.toString("latin1");
  const crlf = text.indexOf("\r\n\r\n");
  const lf = text.indexOf("\n\n");
  // A message without a body: everything is header (RFC 5322 allows omitting the empty line).
  if (crlf < 0 && lf < 0) return { header: text, body: "" };
  if (lf >= 0 && (crlf < 0 || lf < crlf))
    return { header: text.slice(0, lf).replace(/\r$/, ""), body: text.slice(lf + 2) };
  return { header: text.slice(0, crlf), body: text.slice(crlf + 4) };
}

/** A header field as it stands in the message, folding included, without its final line end. */
export interface HeaderField {
  /** Lower-cased, as relaxed canonicalization writes it. */
  name: string;
  field: string;
}

/** The header block's fields in order; a line starting with SP or HTAB continues the one before. */
export function headerFields(header: string): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const line of header.split(/\r?\n/)) {
    const last = fields.at(-1);
    if (last !== undefined && (line.startsWith(" ") || line.startsWith("\t"))) last.field += `\r\n${line}`;
    else if (line.length > 0)
      fields.push({
        name: line
          .slice(0, Math.max(line.indexOf(":"), 0))
          .trim()
          .toLowerCase(),
        field: line,
      });
  }
  return fields;
}

/**
 * One field, relaxed: the name lower-cased with no space before the colon; the value unfolded,
 * every run of SP and HTAB one SP, none at its start or end. Only SP and HTAB are whitespace here,
 * so a UTF-8 non-breaking space stays as it is.
 */
export function relaxedField(field: string): string {
  const colon = field.indexOf(":");
  const value = field
    .slice(colon + 1)
    .replace(/\r?\n/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/^ | $/g, "");
  return `${field.slice(0, colon).trim().toLowerCase()}:${value}`;
}

/** The fields a signature covers, canonicalized, and their `h=` names. */
export interface SignedFields {
  /** Each field relaxed and ended by CRLF, in `names` order. */
  canonical: string;
  names: string[];
}

/**
 * The header fields to sign: for each name of `wanted` (any case) that the message has, its last
 * occurrence (§5.4.2: a verifier takes the instances of a name from the bottom up), in the order
 * of `wanted`; names the message lacks are left out.
 */
export function signedFields(fields: readonly HeaderField[], wanted: readonly string[]): SignedFields {
  const last = new Map<string, string>();
  for (const f of fields) last.set(f.name, f.field);
  const names: string[] = [];
  let canonical = "";
  for (const name of new Set(wanted.map((w) => w.toLowerCase()))) {
    const field = last.get(name);
    if (field === undefined) continue;
    names.push(name);
    canonical += `${relaxedField(field)}\r\n`;
  }
  return { canonical, names };
}

/**
 * The body, relaxed: bare LF read as CRLF; every run of SP and HTAB one SP, none at a line's
 * end; empty lines at the end dropped; a non-empty result ends with CRLF, an empty body stays
 * empty (RFC 6376 erratum 3133).
 */
export function relaxedBody(body: string): string {
  let text = body.replace(/[ \t]+/g, " ").replace(/ ?\r?\n/g, "\r\n");
  if (text.endsWith(" ")) text = text.slice(0, -1); // the last line, when it has no line end
  let end = text.length;
  while (end >= 2 && text.charCodeAt(end - 1) === 10 && text.charCodeAt(end - 2) === 13) end -= 2;
  return end === 0 ? "" : `${text.slice(0, end)}\r\n`;
}
