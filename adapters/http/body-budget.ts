import { FlagpostError } from "../../src/errors.js";

/**
 * Bytes of request bodies held at once by one handler (a ByteBudget: a body is read only once its
 * bytes fit in what other requests in flight hold, else 503 + Retry-After rather than buffering
 * it), by default: two 40 MiB emails and change.
 */
export const DEFAULT_BODY_BUDGET = 96 * 1024 * 1024;

/** Seconds a client refused for lack of budget is told to wait (a large body takes about this long). */
export const BODY_RETRY_AFTER = "1";

export function budgetExceeded(): FlagpostError {
  return new FlagpostError(
    "unavailable",
    "Too many large request bodies are being received at once; retry after the time in Retry-After",
  );
}

/** The bytes to hold for a body: its declared length, or the route's limit when none is declared. */
export function bytesToHold(contentLength: string | undefined, routeLimit: number): number {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, routeLimit) : routeLimit;
}
