import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";

const generate = promisify(generateKeyPair);

/** A domain's DKIM key: the PEM private key flagpost signs with, the public key DNS publishes. */
export interface DkimKey {
  readonly privateKeyPem: string;
  /** Base64 DER SubjectPublicKeyInfo, the `p=` of the DKIM TXT record (RFC 6376 §3.6.1). */
  readonly publicKeyBase64: string;
}

/**
 * An RSA 2048 key pair: 2048 bits is what Gmail and Microsoft ask of bulk senders and still fits
 * one TXT record split into 255-octet strings. Generated off the event loop (libuv thread pool).
 */
export async function generateDkimKey(): Promise<DkimKey> {
  const { privateKey, publicKey } = await generate("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString("base64") };
}
