import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** Marks a sealed value, so an unencrypted PEM (no secret configured) is told apart from it. */
const PREFIX = "aes256gcm:";

/**
 * Seals a DKIM private key for storage with AES-256-GCM under `key` (32 bytes, derived from
 * `FLAGPOST_SECRET_KEY`), or keeps it as it is when no key is given: without a configured secret
 * there is nothing outside the database to encrypt with, and a key kept beside the ciphertext
 * would protect nothing. Format: `aes256gcm:<iv>.<tag>.<ciphertext>`, each base64url.
 */
export function sealPrivateKey(pem: string, key: Buffer | undefined): string {
  if (key === undefined) return pem;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(pem, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), body].map((part) => part.toString("base64url"));
  return PREFIX + parts.join(".");
}

/** The PEM back from `sealPrivateKey`; throws when the key is wrong or the value was altered. */
export function openPrivateKey(stored: string, key: Buffer | undefined): string {
  if (!stored.startsWith(PREFIX)) return stored;
  if (key === undefined) throw new Error("the DKIM key is encrypted and FLAGPOST_SECRET_KEY is unset");
  const [iv, tag, body] = stored
    .slice(PREFIX.length)
    .split(".")
    .map((part) => Buffer.from(part, "base64url"));
  if (iv === undefined || tag === undefined || body === undefined) throw new Error("malformed sealed DKIM key");
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
