import type {
  IdempotencyBegin,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyRepository,
} from "../storage/index.js";

interface Entry {
  fingerprint: string;
  lockedUntil: string;
  expiresAt: string;
  done: boolean;
  response?: unknown;
}

export class MemoryIdempotencyRepository implements IdempotencyRepository {
  readonly #entries = new Map<string, Entry>();

  async begin(claim: IdempotencyClaim): Promise<IdempotencyBegin> {
    const id = `${claim.scope}\u0000${claim.key}`;
    const entry = this.#entries.get(id);
    if (entry && entry.expiresAt > claim.now) {
      if (entry.fingerprint !== claim.fingerprint) return { state: "mismatch" };
      if (entry.done) return { state: "replay", response: structuredClone(entry.response) };
      if (entry.lockedUntil > claim.now) return { state: "in_progress" };
      entry.lockedUntil = claim.lockedUntil; // the previous owner's claim lapsed: take it over
      return { state: "started" };
    }
    this.#entries.set(id, {
      fingerprint: claim.fingerprint,
      lockedUntil: claim.lockedUntil,
      expiresAt: claim.expiresAt,
      done: false,
    });
    return { state: "started" };
  }

  async extend(scope: string, key: string, fingerprint: string, lockedUntil: string): Promise<boolean> {
    const entry = this.#entries.get(`${scope}\u0000${key}`);
    if (!entry || entry.done || entry.fingerprint !== fingerprint) return false;
    entry.lockedUntil = lockedUntil;
    return true;
  }

  async complete(completion: IdempotencyCompletion): Promise<void> {
    this.completeNow(completion);
  }

  /** Synchronous completion, for memory repositories that store a write and its completion at once. */
  completeNow({ scope, key, response }: IdempotencyCompletion): void {
    const entry = this.#entries.get(`${scope}\u0000${key}`);
    if (!entry) return;
    entry.done = true;
    entry.response = structuredClone(response);
  }

  async release(scope: string, key: string): Promise<void> {
    const id = `${scope}\u0000${key}`;
    if (this.#entries.get(id)?.done === false) this.#entries.delete(id);
  }

  async purgeExpired(now: string): Promise<number> {
    let purged = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt < now) {
        this.#entries.delete(id);
        purged += 1;
      }
    }
    return purged;
  }
}
