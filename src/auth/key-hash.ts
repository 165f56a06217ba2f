import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** Plain keys look like `fp_` + 32 random bytes in base64url (43 characters). */
export const KEY_PREFIX = "fp_";

export function generatePlainKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 of the key's UTF-8 bytes, as hex: what is stored and looked up. The one-shot
 * `crypto.hash` with hex output is the cheapest form here (about half the cost of asking it
 * for a Buffer, and a third of a Hash object's).
 */
export function hashKey(plain: string): string {
  return hash("sha256", plain, "hex");
}

/** A hex digest's bytes, for {@link digestsEqual}. */
export function digestBytes(hex: string): Buffer {
  return Buffer.from(hex, "hex");
}

/**
 * Compares two SHA-256 digests with crypto.timingSafeEqual, so the time taken does not depend
 * on where they differ (their lengths are public: both are 32 bytes).
 */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a secret someone sent (a password, an HMAC in hex) equals the expected one, in time that
 * depends on neither: both are hashed first, so even their lengths are not compared directly.
 */
export function sameSecret(given: string, expected: string): boolean {
  return digestsEqual(hash("sha256", given, "buffer"), hash("sha256", expected, "buffer"));
}
