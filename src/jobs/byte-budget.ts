import { FlagpostError } from "../errors.js";

/**
 * A byte budget for work done in this process: `hold(bytes, work)` runs `work` once `bytes` fit
 * in what the work already running holds, and gives them back when it settles. Waiters go in
 * order (a large one is not passed over forever by small ones), and work larger than the whole
 * budget still runs, alone. The outbox sends large emails through one, so the content they bring
 * into memory is bounded in bytes, not only in number.
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
    if (this.#waiting.length > 0 || !this.#fits(bytes))
      await new Promise<void>((start) => this.#waiting.push({ bytes, start }));
    else this.#held += bytes;
    try {
      return await work();
    } finally {
      this.#held -= bytes;
      this.#next();
    }
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
