/**
 * The callers of `EventBuffer.flush()` waiting for their events to leave the buffer. Events carry
 * increasing sequence numbers, so a caller waits for "everything up to seq n".
 */
interface Waiter {
  /** Resolved once every event up to this sequence number has left the buffer. */
  seq: number;
  resolve(): void;
  reject(error: unknown): void;
}

export class FlushWaiters {
  #waiters: Waiter[] = [];

  /** Resolves once `settle` is called with an oldest remaining sequence number above `seq`. */
  wait(seq: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#waiters.push({ seq, resolve, reject }));
  }

  /** Resolves the waiters whose events have all left (`oldest` is the oldest still held); with an error, rejects the rest. */
  settle(oldest: number, error?: unknown): void {
    if (this.#waiters.length === 0) return;
    const pending: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.seq < oldest) waiter.resolve();
      else if (error !== undefined) waiter.reject(error);
      else pending.push(waiter);
    }
    this.#waiters = pending;
  }
}
