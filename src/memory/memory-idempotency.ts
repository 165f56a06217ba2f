import type {
  IdempotencyBegin,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyRepository,
} from "../ports/storage/index.js";
import { copy } from "./memory-table.js";

interface Entry {
  fingerprint: string;
  lockedUntil: string;
  expiresAt: string;
  done: boolean;
  response?: unknown;
}

const keyOf = (scope: string, key: string) => `${scope}\u0000${key}`;

export class MemoryIdempotencyRepository implements IdempotencyRepository {
  readonly #entries = new Map<string, Entry>();

  async begin({ scope, key, fingerprint, now, lockedUntil, expiresAt }: IdempotencyClaim): Promise<IdempotencyBegin> {
    const entry = this.#entries.get(keyOf(scope, key));
    if (!entry || entry.expiresAt <= now) {
      this.#entries.set(keyOf(scope, key), { fingerprint, lockedUntil, expiresAt, done: false });
      return { state: "started" };
    }
    if (entry.fingerprint !== fingerprint) return { state: "mismatch" };
    if (entry.done) return { state: "replay", response: copy(entry.response) };
    if (entry.lockedUntil > now) return { state: "in_progress" };
    entry.lockedUntil = lockedUntil; // the previous owner's claim lapsed: take it over
    return { state: "started" };
  }

  async extend(scope: string, key: string, fingerprint: string, lockedUntil: string): Promise<boolean> {
    const entry = this.#entries.get(keyOf(scope, key));
    if (!entry || entry.done || entry.fingerprint !== fingerprint) return false;
    entry.lockedUntil = lockedUntil;
    return true;
  }

  async complete(completion: IdempotencyCompletion): Promise<void> {
    this.completeNow(completion);
  }

  /** Synchronous completion, for memory repositories that store a write and its completion at once. */
  completeNow({ scope, key, response }: IdempotencyCompletion): void {
    const entry = this.#entries.get(keyOf(scope, key));
    if (entry) Object.assign(entry, { done: true, response: copy(response) });
  }

  async release(scope: string, key: string): Promise<void> {
    if (this.#entries.get(keyOf(scope, key))?.done === false) this.#entries.delete(keyOf(scope, key));
  }

  async purgeExpired(now: string): Promise<number> {
    const expired = [...this.#entries].filter(([, entry]) => entry.expiresAt < now);
    for (const [id] of expired) this.#entries.delete(id);
    return expired.length;
  }
}
