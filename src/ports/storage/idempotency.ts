import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Idempotency (shared by every route that accepts an Idempotency-Key)

export interface IdempotencyClaim {
  /** Whose key it is: the API key id (keys are per API key), or a caller-chosen scope in process. */
  scope: string;
  key: string;
  /** Hash of what the request asks for; the same key with another fingerprint is a misuse. */
  fingerprint: string;
  now: EpochMs;
  /** Until when this claim blocks concurrent users of the key while the work runs. */
  lockedUntil: EpochMs;
  /** When the key may be reused for anything (24 h after first use). */
  expiresAt: EpochMs;
}

export type IdempotencyBegin =
  /** The caller owns the key now: do the work, then complete (or release) it. */
  | { state: "started" }
  /** The work was done before with the same fingerprint: answer with this stored result. */
  | { state: "replay"; response: unknown }
  /** The key was used with a different fingerprint. */
  | { state: "mismatch" }
  /** Another caller holds an unexpired claim on the key. */
  | { state: "in_progress" };

/** Passed to a write that must complete an idempotency claim in the same transaction. */
export interface IdempotencyCompletion {
  scope: string;
  key: string;
  /** JSON-serialisable result replayed to later callers. */
  response: unknown;
}

export interface IdempotencyRepository {
  /**
   * Claims `key` in `scope`. A record whose `expiresAt` has passed counts as absent. A pending
   * claim whose `lockedUntil` has passed (its owner crashed) MAY be taken over: the result is
   * then "started". When several callers race for one key, exactly one gets "started".
   */
  begin(claim: IdempotencyClaim): Promise<IdempotencyBegin>;
  /**
   * Keeps a started claim alive: sets its `lockedUntil` while it is still pending with this
   * fingerprint and returns true; false (nothing changed) when it completed, was released, or
   * does not exist. The process doing the work calls this while it runs, so the lock can be
   * short and a retry after a crash proceeds within seconds.
   */
  extend(scope: string, key: string, fingerprint: string, lockedUntil: EpochMs): Promise<boolean>;
  /** Stores the result of a started claim; later `begin`s with the same fingerprint replay it. */
  complete(completion: IdempotencyCompletion): Promise<void>;
  /** Drops a pending claim (the work failed), so the key can be used again at once. */
  release(scope: string, key: string): Promise<void>;
  /** Deletes records whose `expiresAt` is before `now`; returns how many. */
  purgeExpired(now: EpochMs): Promise<number>;
}
