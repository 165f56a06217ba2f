import { FlagpostError } from "../../src/internal.js";

/** Bytes of request bodies held at once by one handler, by default: two 40 MiB emails and change. */
export const DEFAULT_BODY_BUDGET = 96 * 1024 * 1024;

/** Seconds a client refused for lack of budget is told to wait (a large body takes about this long). */
export const BODY_RETRY_AFTER = "1";

export function budgetExceeded(): FlagpostError {
  return new FlagpostError(
    "unavailable",
    "Too many large request bodies are being received at once; retry after the time in Retry-After",
  );
}

/**
 * A byte budget shared by every request a handler serves: a body is read only once its bytes
 * (its Content-Length, or the route's limit when the length is not declared) fit in what other
 * requests in flight hold, and they are given back when its response is ready (the parsed body
 * lives until then). Past the budget the request is refused with 503 and Retry-After rather than
 * buffered, so parallel 40 MiB uploads cannot take the process's memory. A body larger than the
 * whole budget is still read when nothing else is held, so no request is refused forever.
 */
export class BodyBudget {
  readonly #limit: number;
  #held = 0;

  constructor(limit: number) {
    if (!Number.isFinite(limit) || limit < 1)
      throw new FlagpostError("validation_error", `bodyBudget must be a number of bytes of at least 1 (got ${limit})`);
    this.#limit = limit;
  }

  /** Bytes held by bodies in flight now. */
  get held(): number {
    return this.#held;
  }

  /** Holds `bytes` (give them back with release); false, holding nothing, when they do not fit. */
  tryReserve(bytes: number): boolean {
    if (this.#held > 0 && this.#held + bytes > this.#limit) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held -= bytes;
  }
}

/** The bytes to hold for a body: its declared length, or the route's limit when none is declared. */
export function bytesToHold(contentLength: string | undefined, routeLimit: number): number {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, routeLimit) : routeLimit;
}
