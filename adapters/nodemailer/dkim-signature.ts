import { createHash, sign } from "node:crypto";
import type { DkimSigning } from "../../src/ports/transport.js";
import { headerFields, relaxedBody, relaxedField, signedFields, splitMessage } from "./dkim-canonical.js";

/** Folded lines stay within this many characters (RFC 5322 recommends 78). */
const WIDTH = 76;

/**
 * Joins `pieces`, folding (CRLF + SP) before a piece that would pass {@link WIDTH}. Pieces are
 * the places a fold may go: between tags, between `h=` names, inside base64 (RFC 6376 allows
 * folding whitespace there, and verifiers drop it).
 */
function fold(pieces: readonly string[], column = 0): string {
  let out = "";
  let width = column;
  for (const piece of pieces) {
    if (width > 0 && width + piece.length > WIDTH) {
      out += piece.startsWith(" ") ? "\r\n" : "\r\n ";
      width = 1;
    }
    out += piece;
    width += piece.length;
  }
  return out;
}

/** `text` in runs of `size` characters. */
function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * The DKIM-Signature field (ending in CRLF) to put in front of `raw`, a complete message as it
 * goes on the wire: `v=1; a=rsa-sha256; c=relaxed/relaxed; d; q=dns/txt; s; bh; h; b`, no `l=`
 * (the whole body is covered, so nothing can be appended) and no `t=`/`x=`, the tags nodemailer's
 * signer wrote before. Throws when the key cannot sign: the caller must not send the message.
 * Synchronous, canonicalization and RSA signature alike: it runs in a signing thread
 * (signing-worker.ts), never on the event loop.
 */
export function dkimSignatureField(raw: Buffer, dkim: DkimSigning): string {
  const { header, body } = splitMessage(raw);
  const bodyHash = createHash("sha256").update(relaxedBody(body), "latin1").digest("base64");
  const covered = signedFields(headerFields(header), dkim.signedHeaders);
  // RFC 6376 §5.4: From must be signed; a message without one cannot be.
  if (!covered.names.includes("from")) throw new Error("the message has no From field to sign");
  const names = covered.names.map((name, i) => (i === covered.names.length - 1 ? `${name};` : `${name}:`));
  const unsigned = fold([
    "DKIM-Signature: v=1;",
    " a=rsa-sha256;",
    " c=relaxed/relaxed;",
    ` d=${dkim.domainName};`,
    " q=dns/txt;",
    ` s=${dkim.keySelector};`,
    ` bh=${bodyHash};`,
    " h=",
    ...names,
    " b=",
  ]);
  // §3.7: the covered fields, then this field with an empty b= and no line end.
  const signed = `${covered.canonical}${relaxedField(unsigned)}`;
  const signature = sign("sha256", Buffer.from(signed, "latin1"), dkim.privateKey);
  const lastLine = unsigned.slice(unsigned.lastIndexOf("\n") + 1);
  return `${unsigned}${fold(chunks(signature.toString("base64"), 64), lastLine.length)}\r\n`;
}
