import { createHash, sign } from "node:crypto";
import { promisify } from "node:util";
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

/** The field up to its empty `b=`, and the bytes its signature covers (RFC 6376 §3.7). */
interface Unsigned {
  field: string;
  covered: Buffer;
}

/**
 * The canonicalization, both hashes' inputs and the field without its signature: one
 * implementation for both places signing runs (a signing thread, or the event loop with the RSA
 * operation on libuv's pool). `v=1; a=rsa-sha256; c=relaxed/relaxed; d; q=dns/txt; s; bh; h; b`,
 * no `l=` (the whole body is covered, so nothing can be appended) and no `t=`/`x=`, the tags
 * nodemailer's signer wrote before. Throws when the message cannot be signed.
 */
function unsignedField(raw: Buffer, dkim: DkimSigning): Unsigned {
  const { header, body } = splitMessage(raw);
  const bodyHash = createHash("sha256").update(relaxedBody(body), "latin1").digest("base64");
  const covered = signedFields(headerFields(header), dkim.signedHeaders);
  // RFC 6376 §5.4: From must be signed; a message without one cannot be.
  if (!covered.names.includes("from")) throw new Error("the message has no From field to sign");
  const names = covered.names.map((name, i) => (i === covered.names.length - 1 ? `${name};` : `${name}:`));
  const field = fold([
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
  return { field, covered: Buffer.from(`${covered.canonical}${relaxedField(field)}`, "latin1") };
}

/** `unsigned` completed with `signature`, folded, ending in CRLF. */
function withSignature(unsigned: string, signature: Buffer): string {
  const lastLine = unsigned.slice(unsigned.lastIndexOf("\n") + 1);
  return `${unsigned}${fold(chunks(signature.toString("base64"), 64), lastLine.length)}\r\n`;
}

/**
 * The DKIM-Signature field (ending in CRLF) to put in front of `raw`, a complete message as it
 * goes on the wire. Synchronous, RSA signature included: for a signing thread (signing-worker.ts).
 * Throws when the key cannot sign: the caller must not send the message.
 */
export function dkimSignatureField(raw: Buffer, dkim: DkimSigning): string {
  const unsigned = unsignedField(raw, dkim);
  return withSignature(unsigned.field, sign("sha256", unsigned.covered, dkim.privateKey));
}

/**
 * node:crypto's sign with a callback runs the RSA private-key operation on the libuv thread pool:
 * the event loop keeps serving while another core signs (the synchronous form held it ~240 µs).
 */
const signOnPool = promisify(sign);

/**
 * The same field made on the event loop with signing threads off (signingThreads 0): the
 * canonicalization and hashes here, the RSA operation on libuv's pool. Rejects when the key
 * cannot sign.
 */
export async function dkimSignatureFieldOnLoop(raw: Buffer, dkim: DkimSigning): Promise<string> {
  const unsigned = unsignedField(raw, dkim);
  return withSignature(unsigned.field, await signOnPool("sha256", unsigned.covered, dkim.privateKey));
}
