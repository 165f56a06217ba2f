import type { EpochMs, IdempotencyCompletion, IdempotencyRepository } from "../ports/storage/index.js";
import { copy } from "./memory-table.js";

interface Entry {
  fingerprint: string;
  lockedUntil: EpochMs;
  expiresAt: EpochMs;
  done: boolean;
  response?: unknown;
}

/** Idempotency keys in memory; `completeNow` lets a memory write store itself and its completion in one step. */
export type MemoryIdempotency = IdempotencyRepository & { completeNow(completion: IdempotencyCompletion): void };

export function memoryIdempotency(): MemoryIdempotency {
  /** By scope and key. */
  const entries = new Map<string, Entry>();
  const keyOf = (scope: string, key: string) => `${scope}\u0000${key}`;
  const completeNow = ({ scope, key, response }: IdempotencyCompletion) => {
    const entry = entries.get(keyOf(scope, key));
    if (entry) Object.assign(entry, { done: true, response: copy(response) });
  };
  return {
    async begin({ scope, key, fingerprint, now, lockedUntil, expiresAt }) {
      const entry = entries.get(keyOf(scope, key));
      if (!entry || entry.expiresAt <= now) {
        entries.set(keyOf(scope, key), { fingerprint, lockedUntil, expiresAt, done: false });
        return { state: "started" };
      }
      if (entry.fingerprint !== fingerprint) return { state: "mismatch" };
      if (entry.done) return { state: "replay", response: copy(entry.response) };
      if (entry.lockedUntil > now) return { state: "in_progress" };
      entry.lockedUntil = lockedUntil; // the previous owner's claim lapsed: take it over
      return { state: "started" };
    },
    async extend(scope, key, fingerprint, lockedUntil) {
      const entry = entries.get(keyOf(scope, key));
      if (!entry || entry.done || entry.fingerprint !== fingerprint) return false;
      entry.lockedUntil = lockedUntil;
      return true;
    },
    complete: async (completion) => completeNow(completion),
    completeNow,
    async release(scope, key) {
      if (entries.get(keyOf(scope, key))?.done === false) entries.delete(keyOf(scope, key));
    },
    async purgeExpired(now) {
      const expired = [...entries].filter(([, entry]) => entry.expiresAt < now);
      for (const [id] of expired) entries.delete(id);
      return expired.length;
    },
  };
}
