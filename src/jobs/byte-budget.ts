import { FlagpostError } from "../errors.js";

/**
 * A byte budget for work done in this process: `hold(bytes, work)` runs `work` once `bytes` fit
 * in what the work already running holds, and gives them back when it settles; `tryReserve`
 * takes them only if they fit now (give them back with `release`). Waiters go in order (a large
 * one is not passed over forever by small ones), and work larger than the whole budget still runs,
 * alone. The outbox sends large emails through one (it waits), the HTTP handler reads request
 * bodies through another (it refuses with 503 instead), so what they bring into memory is bounded
 * in bytes, not only in number.
 */
export class ByteBudget {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: { bytes: number; start: () => void }[] = [];

  constructor(limit: number, name = "byte budget") {
    if (!Number.isFinite(limit) || limit < 1)
      throw new FlagpostError("validation_error", `${name} must be a number of bytes of at least 1 (got ${limit})`);
    this.#limit = limit;
  }

  /** Bytes held by work running now. */
  get held(): number {
    return this.#held;
  }

  /** Work waiting for bytes. */
  get waiting(): number {
    return this.#waiting.length;
  }

  async hold<T>(bytes: number, work: () => Promise<T>): Promise<T> {
    // A waiter's bytes are counted by #next when its turn comes.
    if (!this.tryReserve(bytes)) await new Promise<void>((start) => this.#waiting.push({ bytes, start }));
    try {
      return await work();
    } finally {
      this.release(bytes);
    }
  }

  /** Holds `bytes` when they fit now and nobody waits; false, holding nothing, otherwise. */
  tryReserve(bytes: number): boolean {
    if (this.#waiting.length > 0 || !this.#fits(bytes)) return false;
    this.#held += bytes;
    return true;
  }

  /** Gives back bytes held by `tryReserve`, and starts the waiters that now fit. */
  release(bytes: number): void {
    this.#held -= bytes;
    this.#next();
  }

  #fits(bytes: number): boolean {
    return this.#held === 0 || this.#held + bytes <= this.#limit;
  }

  #next(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.bytes)) {
      const { bytes, start } = this.#waiting.shift()!;
      this.#held += bytes;
      start();
    }
  }
}
