import type { KeyObject } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { dkimSignatureField } from "./dkim-signature.js";
import type { SigningReply, SigningRequest } from "./signing-threads.js";

/**
 * A DKIM signing thread (signing-threads.ts starts it): for each message handed over, the relaxed
 * canonicalization, both SHA-256 hashes and the RSA signature, then the message handed back with
 * its DKIM-Signature field in front. Keys come once per thread and are kept by number.
 */
const keys = new Map<number, KeyObject>();
const headerLists = new Map<number, readonly string[]>();

function answer(request: SigningRequest): { reply: SigningReply; transfer: ArrayBuffer[] } {
  try {
    if (request.key !== undefined) keys.set(request.keyId, request.key);
    if (request.headers !== undefined) headerLists.set(request.headersId, request.headers);
    const privateKey = keys.get(request.keyId);
    const signedHeaders = headerLists.get(request.headersId);
    if (privateKey === undefined || signedHeaders === undefined)
      throw new Error(`the signing thread lacks key ${request.keyId} or header list ${request.headersId}`);
    const raw = Buffer.from(request.message.buffer, request.message.byteOffset, request.message.byteLength);
    const field = dkimSignatureField(raw, {
      domainName: request.domainName,
      keySelector: request.keySelector,
      privateKey,
      signedHeaders,
    });
    // A buffer of its own (never Node's shared pool) so that it can be transferred, not copied.
    const signed = new Uint8Array(field.length + raw.length);
    Buffer.from(signed.buffer).write(field, "latin1");
    signed.set(raw, field.length);
    return { reply: { id: request.id, signed }, transfer: [signed.buffer] };
  } catch (error) {
    return { reply: { id: request.id, error: error instanceof Error ? error.message : String(error) }, transfer: [] };
  }
}

parentPort!.on("message", (request: SigningRequest) => {
  const { reply, transfer } = answer(request);
  parentPort!.postMessage(reply, transfer);
});
