import { murmur3Utf8 } from "./bucket.js";

/**
 * MurmurHash3 x86_32 (seed 0) of `prefix + rest`, where the prefix (a flag's `key + ":"`) is hashed
 * once when the flag is compiled and only `rest` (the user id) is hashed per call. This gives
 * exactly `murmur3Utf8(prefix + rest)` without building the joined string: no allocation on the
 * hot path. A non-ASCII `rest` (rare) falls back to the UTF-8 path of bucket.ts.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

export interface HashPrefix {
  /** The prefix itself, for the non-ASCII fallback. */
  readonly text: string;
  /** State after the prefix's complete 4-byte blocks. */
  readonly h: number;
  /** The prefix's trailing bytes (0 to 3 of them), little-endian, not yet a block. */
  readonly word: number;
  /** How many trailing bytes `word` holds. */
  readonly pending: number;
  /** The prefix's length in bytes. */
  readonly length: number;
}

function mixBlock(h: number, k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function hashPrefix(text: string): HashPrefix {
  const bytes = new TextEncoder().encode(text);
  let h = 0;
  const full = bytes.length & ~3;
  for (let i = 0; i < full; i += 4) {
    h = mixBlock(h, bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
  }
  let word = 0;
  for (let i = full; i < bytes.length; i++) word |= bytes[i]! << (8 * (i - full));
  return { text, h, word, pending: bytes.length - full, length: bytes.length };
}

/** murmur3_x86_32(utf8(prefix.text + rest), 0) as an unsigned 32-bit integer. */
export function murmur3WithPrefix(prefix: HashPrefix, rest: string): number {
  const n = rest.length;
  let h = prefix.h;
  let k = prefix.word;
  let i = 0;
  // Complete the prefix's partial block with the first characters of `rest`.
  let pending = prefix.pending;
  if (pending !== 0) {
    while (pending < 4 && i < n) {
      const c = rest.charCodeAt(i++);
      if (c > 0x7f) return murmur3Utf8(prefix.text + rest);
      k |= c << (8 * pending++);
    }
    if (pending < 4) return finish(h, k, prefix.length + n, true);
    h = mixBlock(h, k);
    k = 0;
  }
  // Whole blocks, four ASCII characters at a time.
  const blocksEnd = i + ((n - i) & ~3);
  for (; i < blocksEnd; i += 4) {
    const c0 = rest.charCodeAt(i);
    const c1 = rest.charCodeAt(i + 1);
    const c2 = rest.charCodeAt(i + 2);
    const c3 = rest.charCodeAt(i + 3);
    if ((c0 | c1 | c2 | c3) > 0x7f) return murmur3Utf8(prefix.text + rest);
    h = mixBlock(h, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24));
  }
  // Tail: up to three characters.
  let shift = 0;
  for (; i < n; i++) {
    const c = rest.charCodeAt(i);
    if (c > 0x7f) return murmur3Utf8(prefix.text + rest);
    k |= c << shift;
    shift += 8;
  }
  return finish(h, k, prefix.length + n, shift !== 0);
}

function finish(h: number, k: number, length: number, hasTail: boolean): number {
  if (hasTail) {
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
