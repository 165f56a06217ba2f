/**
 * Some mail stores and old Macintosh tools write messages with CR alone at line ends; mailparser
 * only knows LF and CRLF, and would see one endless header line. This turns every CR that no LF
 * follows into CRLF, and returns the very buffer when there is none (the common case, one scan).
 */
const CR = 0x0d;
const LF = 0x0a;

export function withLineFeeds(bytes: Buffer): Buffer {
  let lone = 0;
  for (let i = bytes.indexOf(CR); i >= 0; i = bytes.indexOf(CR, i + 1)) if (bytes[i + 1] !== LF) lone += 1;
  if (lone === 0) return bytes;
  const out = Buffer.allocUnsafe(bytes.length + lone);
  let at = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    out[at++] = byte;
    if (byte === CR && bytes[i + 1] !== LF) out[at++] = LF;
  }
  return out;
}
