import { randomFillSync } from "node:crypto";

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then a 12-bit counter that keeps ids made in the
 * same millisecond strictly increasing inside this process (method 1 of §6.2), then 62 random bits.
 * Ids therefore sort by creation time, which the event cursor and the outbox rely on for ties.
 */
// Random bytes are taken 8 at a time from a pool refilled in one call: a call per id costs more
// than making the id. Ids are made by the million (events), so nothing here allocates per id.
const pool = new Uint8Array(8 * 1024);
let poolOffset = pool.length;
let lastMs = -1;
let counter = 0;
/** The id being made, byte by byte: spelled out as text before the next one reuses it. */
const b = new Uint8Array(16);

/** Where 8 unused random bytes start in `pool`. */
function randomAt(): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += 8;
  return at;
}

export function uuidv7(nowMs: number = Date.now()): string {
  let ms = Math.floor(nowMs);
  if (ms <= lastMs) {
    // Same millisecond (or the clock stepped back): keep the previous time and count up.
    ms = lastMs;
    counter += 1;
    if (counter > 0xfff) {
      ms += 1;
      counter = 0;
    }
  } else {
    counter = pool[randomAt()]! & 0x7f; // random start leaves room to count up
  }
  lastMs = ms;

  const random = randomAt();
  // 48-bit big-endian millisecond timestamp; division keeps it exact beyond 32 bits.
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  b[0] = (high >>> 8) & 0xff;
  b[1] = high & 0xff;
  b[2] = (low >>> 24) & 0xff;
  b[3] = (low >>> 16) & 0xff;
  b[4] = (low >>> 8) & 0xff;
  b[5] = low & 0xff;
  b[6] = 0x70 | ((counter >>> 8) & 0x0f);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (pool[random]! & 0x3f);
  for (let i = 1; i < 8; i++) b[8 + i] = pool[random + i]!;

  return uuidText(b);
}

const HEX_CODES = Array.from({ length: 16 }, (_, i) => "0123456789abcdef".charCodeAt(i));
/** Where each byte's two hex digits go in the 36 characters (the dashes stay put). */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const codes: number[] = new Array<number>(36).fill(45); // "-"

/**
 * The 8-4-4-4-12 text of 16 bytes, made as one flat string: appending 20 pieces builds a chain of
 * partial strings that is flattened again when the id is read (events make ids by the million).
 */
function uuidText(b: Uint8Array): string {
  for (let i = 0; i < 16; i++) {
    const at = DIGIT_AT[i]!;
    codes[at] = HEX_CODES[b[i]! >>> 4]!;
    codes[at + 1] = HEX_CODES[b[i]! & 15]!;
  }
  return String.fromCharCode.apply(null, codes);
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
