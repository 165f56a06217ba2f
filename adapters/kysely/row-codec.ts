import { FlagpostError } from "../../src/errors.js";
import { isoFromMs, parseUtcInstant } from "../../src/time.js";

/** Conversions at the boundary between the port's values and column values. */

/**
 * Epoch milliseconds of an ISO-8601 UTC time as `Date#toISOString()` writes it. Any other form
 * is refused: it could not be returned unchanged, which the port promises.
 */
export function toEpochMs(iso: string, field: string): number {
  // The exact toISOString() shape with valid fields round-trips by construction: no need to format it again.
  if (iso.length === 24) {
    const fast = parseUtcInstant(iso);
    if (fast !== undefined) return fast;
  }
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== iso) {
    const message = `must be an ISO-8601 UTC time as Date#toISOString() writes it, got ${JSON.stringify(iso)}`;
    throw new FlagpostError("validation_error", `"${field}" ${message}`, { details: [{ path: field, message }] });
  }
  return ms;
}

export function toIso(value: number | string | bigint): string {
  return isoFromMs(toNumber(value));
}

export function toNumber(value: number | string | bigint): number {
  return typeof value === "number" ? value : Number(value);
}

/** pg gives booleans; MySQL's tinyint and SQLite's integer give 0/1 (or 0n/1n with safeIntegers). */
export function toBoolean(value: boolean | number | bigint): boolean {
  return typeof value === "boolean" ? value : Number(value) !== 0;
}
