import { FlagpostError } from "../../src/errors.js";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";

/** Conversions at the boundary between the port's values and column values. */

export function toNumber(value: number | string | bigint): number {
  return typeof value === "number" ? value : Number(value);
}

/** pg gives booleans; MySQL's tinyint and SQLite's integer give 0/1 (or 0n/1n with safeIntegers). */
export function toBoolean(value: boolean | number | bigint): boolean {
  return typeof value === "boolean" ? value : Number(value) !== 0;
}

/** The value of each lower-case hex digit by char code, -1 for every other character. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_DIGIT["0123456789abcdef".charCodeAt(i)] = i;

/** Where a UUID's hex pairs start in its 36 characters (8-4-4-4-12: no pair straddles a dash). */
const PAIR_STARTS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * The 16 bytes a lower-case UUID spells (into `bytes` when given), or false for any other text.
 * One pass, no regex.
 */
function uuidBytes<B extends Uint8Array | undefined>(id: string, bytes: B): B | false {
  if (id.length !== 36 || id[8] !== "-" || id[13] !== "-" || id[18] !== "-" || id[23] !== "-") return false;
  for (let i = 0; i < 16; i++) {
    const at = PAIR_STARTS[i]!;
    const high = HEX_DIGIT[id.charCodeAt(at)] ?? -1;
    const low = HEX_DIGIT[id.charCodeAt(at + 1)] ?? -1;
    if (high < 0 || low < 0) return false;
    if (bytes) bytes[i] = (high << 4) | low;
  }
  return bytes;
}

/**
 * An event id as its column holds it (migration 0017): 16 bytes on SQLite and MySQL; PostgreSQL's
 * `uuid` takes and gives the text. Lower-case hex orders like the bytes it spells, so the port's
 * code-point order of ids is the engines' byte order. Any other form is refused: it could not be
 * returned unchanged.
 */
export function eventIdParam(engine: Engine, id: string, field = "id"): string | Buffer {
  // PostgreSQL's uuid takes the text: only check it there.
  if (engineTraits(engine).nativeUuid) return checkedEventId(id, field);
  const bytes = uuidBytes(id, Buffer.allocUnsafe(16));
  if (bytes === false) throw notAnEventId(id, field);
  return bytes;
}

/** eventIdParam's 16 bytes, written into `into` (a view the caller allocated, e.g. one per batch). */
export function eventIdInto(id: string, into: Uint8Array, field = "id"): Uint8Array {
  if (uuidBytes(id, into) === false) throw notAnEventId(id, field);
  return into;
}

/**
 * `id` itself, once checked to be a lower-case UUID: for a statement that turns the text into the
 * column's value on the server (PostgreSQL's uuid).
 */
export function checkedEventId(id: string, field = "id"): string {
  if (uuidBytes(id, undefined) === false) throw notAnEventId(id, field);
  return id;
}

function notAnEventId(id: string, field: string): FlagpostError {
  const message = `must be a lower-case UUID, got ${JSON.stringify(id)}`;
  return new FlagpostError("validation_error", `"${field}" ${message}`, { details: [{ path: field, message }] });
}

/** The text of an event id read back from its column (see eventIdParam). */
export function eventIdText(value: string | Uint8Array): string {
  if (typeof value === "string") return value;
  const hex = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The millisecond time in the first 48 bits of a UUID (a UUIDv7's time of creation), read from its
 * text without allocating. Only called on ids eventIdParam or eventIdText vouched for.
 */
export function uuidTimeMs(id: string): number {
  let ms = 0;
  // 8 hex digits, the dash, 4 more: 12 digits = 48 bits, exact in a double.
  for (let i = 0; i < 13; i++) if (i !== 8) ms = ms * 16 + HEX_DIGIT[id.charCodeAt(i)]!;
  return ms;
}
