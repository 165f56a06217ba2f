import { FlagpostError } from "./errors.js";

/**
 * Strict ISO-8601 parsing. `Date.parse` accepts far more than ISO (and reads a date-time without a
 * zone as local time), so instants are parsed here, by a fixed pattern, into epoch milliseconds.
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})))?$/;

export interface ParseInstantOptions {
  /** Accept a bare date (`2026-01-31`, read as midnight UTC). Default true. */
  allowDateOnly?: boolean;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * Epoch milliseconds of `YYYY-MM-DDTHH:MM:SS.sssZ` or `YYYY-MM-DDTHH:MM:SSZ` (what
 * `Date#toISOString()` and nearly every client write), or undefined for any other text. A fast path
 * over fixed positions: events are parsed by the million, and the general pattern costs more.
 */
export function parseUtcInstant(text: string): number | undefined {
  // An event's timestamp is read up to three times in a row (the fast check, the record, the
  // stored form): the last answer is kept for the same text.
  if (text === lastText) return lastMs;
  const ms = parseFixedUtc(text);
  lastText = text;
  lastMs = ms;
  return ms;
}

let lastText: string | undefined;
let lastMs: number | undefined;

function parseFixedUtc(text: string): number | undefined {
  const length = text.length;
  if (length !== 24 && length !== 20) return undefined;
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // - - T
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 1) !== 90 || // : : Z
    (length === 24 && text.charCodeAt(19) !== 46) // .
  ) {
    return undefined;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const ms = length === 24 ? digits(text, 20, 3) : 0;
  // Years below 100 go the general way: Date.UTC would read them as 1900–1999.
  if (
    year < 100 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59 ||
    ms < 0
  )
    return undefined;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0)) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
const MS_PER_DAY = 86_400_000;
/** 0001-01-01 and 9999-12-31T23:59:59.999Z: the range formatted by hand. */
const MIN_FAST_MS = -62_135_596_800_000;
const MAX_FAST_MS = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, by arithmetic (days to civil date, H. Hinnant's algorithm): reads
 * return two times per event, and Date's formatter costs several times more.
 */
export function isoFromMs(ms: number): string {
  if (!Number.isInteger(ms) || ms < MIN_FAST_MS || ms > MAX_FAST_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}.${THREE_DIGITS[milli]}Z`;
}

/** Epoch milliseconds, or undefined when `text` is not an ISO-8601 date or date-time with a zone. */
export function parseIsoInstant(text: string, options: ParseInstantOptions = {}): number | undefined {
  const fast = parseUtcInstant(text);
  if (fast !== undefined) return fast;
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const hasTime = h !== undefined;
  if (!hasTime && options.allowDateOnly === false) return undefined;
  if (hasTime && z === undefined && sign === undefined) return undefined; // no zone: ambiguous
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = hasTime ? Number(h) : 0;
  const minute = hasTime ? Number(mi) : 0;
  const second = s === undefined ? 0 : Number(s);
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const check = new Date(Date.UTC(2000, 0, 1, hour, minute, second, ms));
  check.setUTCFullYear(year, month - 1, day);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined; // 2026-02-30
  const utc = check.getTime();
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return undefined;
    offsetMinutes = (sign === "-" ? -1 : 1) * (offH * 60 + offM);
  }
  return utc - offsetMinutes * 60_000;
}

/** The largest instant a Date holds: ±8.64e15 ms around the epoch. */
const DATE_RANGE_MS = 8.64e15;

/**
 * `ms` when it is an instant (a whole number of milliseconds a Date can hold), as a storage
 * adapter takes one from the port; otherwise a validation error naming `field`. Refused before
 * anything is stored: a database would turn NaN into NULL or a fraction into something else.
 */
export function checkedEpochMs(ms: number, field: string): number {
  if (Number.isInteger(ms) && Math.abs(ms) <= DATE_RANGE_MS) return ms;
  const message = `must be a whole number of milliseconds since the Unix epoch, got ${String(ms)}`;
  throw new FlagpostError("validation_error", `"${field}" ${message}`, { details: [{ path: field, message }] });
}
