import { randomFillSync } from "node:crypto";

/**
 * UUIDv7 ids for the rows the benchmarks write straight through a driver (seed data, the raw
 * insert floor). flagpost makes its ids with an internal helper that package.json does not export,
 * and ids are no feature of the package, so the benchmarks, which import only what a user can,
 * carry this copy. It keeps what the stored rows depend on, as src/ids.ts does it (RFC 9562,
 * method 1 of §6.2): 48-bit milliseconds, then a 12-bit counter that keeps ids strictly
 * increasing inside the process even when `nowMs` goes back, then 62 random bits.
 */
let lastMs = -1;
let counter = 0;
const random = new Uint8Array(8);

export function uuidv7(nowMs: number = Date.now()): string {
  let ms = Math.floor(nowMs);
  if (ms <= lastMs) {
    ms = lastMs;
    counter += 1;
    if (counter > 0xfff) {
      ms += 1;
      counter = 0;
    }
  } else {
    randomFillSync(random);
    counter = random[0]! & 0x7f; // a random start leaves room to count up
  }
  lastMs = ms;
  randomFillSync(random);
  const time = ms.toString(16).padStart(12, "0");
  const tail = Buffer.from(random).toString("hex");
  const variant = (0x8 | (random[0]! >>> 6)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, "0")}-${variant}${tail.slice(1, 4)}-${tail.slice(4, 16)}`;
}
