import murmurhash from "murmurhash-js";

/**
 * Sticky percentage bucketing, exactly as docs/api.md fixes it so any language can reproduce it:
 * bucket = murmur3_x86_32(utf8(flagKey + ":" + userId), seed 0) % 10000.
 * murmurhash-js hashes the low byte of each UTF-16 code unit, which equals hashing the UTF-8 bytes
 * only for ASCII text; other text is first turned into a string of its UTF-8 bytes.
 */
export const BUCKETS = 10_000;

const encoder = new TextEncoder();

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function utf8ByteString(text: string): string {
  const bytes = encoder.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += String.fromCharCode(bytes[i]!);
  return out;
}

/** murmur3_x86_32 of the UTF-8 bytes of `text`, seed 0, as an unsigned 32-bit integer. */
export function murmur3Utf8(text: string): number {
  return murmurhash.murmur3(isAscii(text) ? text : utf8ByteString(text), 0);
}

/** The user's bucket for this flag, 0 to 9999. */
export function bucketOf(flagKey: string, userId: string): number {
  return murmur3Utf8(`${flagKey}:${userId}`) % BUCKETS;
}

/** A percentage with up to two decimals as a bucket threshold: matches when bucket < threshold. */
export function percentageThreshold(percentage: number): number {
  return Math.round(percentage * 100);
}
