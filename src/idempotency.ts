import { createHash } from "node:crypto";
import type { Clock } from "./ports/clock.js";
import { FlagpostError } from "./errors.js";
import { textProblem } from "./input-policy.js";
import type { IdempotencyCompletion, Storage } from "./ports/storage/index.js";

/**
 * Idempotency-Key handling shared by every operation that accepts one (emails, events).
 * The same key with the same request within 24 h returns the first result and does nothing new;
 * with a different request it is refused; while the first is still running, a second is refused.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim blocks others before it counts as abandoned. The process doing the work
 * extends it every IDEMPOTENCY_RENEW_MS while the work runs, so this only bounds how long a retry
 * waits after that process died (409 `concurrent_idempotent_requests` until then).
 */
export const IDEMPOTENCY_LOCK_MS = 10 * 1000;
export const IDEMPOTENCY_RENEW_MS = 3 * 1000;

export interface IdempotentRequest {
  /** Whose key: the API key id over HTTP; any stable string in process. */
  scope: string;
  /** The Idempotency-Key (1–256 characters). */
  key: string;
  /** What is asked for: `fingerprint(operation, body)`. */
  fingerprint: string;
}

/**
 * JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. An
 * object with `toJSON` (a Date given in process) counts as what JSON.stringify would write for it.
 */
export function canonicalJson(value: unknown, askToJSON = true): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    // Once, as JSON.stringify does: what toJSON returns is written as it is.
    if (askToJSON && typeof toJSON === "function") return canonicalJson((toJSON as () => unknown).call(value), false);
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function fingerprint(operation: string, body: unknown): string {
  return createHash("sha256").update(operation).update("\n").update(canonicalJson(body)).digest("hex");
}

export function checkIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 256) {
    throw new FlagpostError("validation_error", '"Idempotency-Key" must be 1 to 256 characters', {
      details: [{ path: "Idempotency-Key", message: "must be 1 to 256 characters" }],
    });
  }
  const problem = textProblem(key);
  if (problem)
    throw new FlagpostError("validation_error", `"Idempotency-Key" ${problem}`, {
      details: [{ path: "Idempotency-Key", message: problem }],
    });
}

/**
 * Runs `work` at most once per (scope, key). `work` receives `completion(result)`: pass it to the
 * storage write that makes the work durable, so the write and the stored result commit together;
 * if `work` does not use it, the result is stored right after `work` returns.
 */
export async function runIdempotent<T>(
  storage: Storage,
  clock: Clock,
  request: IdempotentRequest,
  work: (completion: (result: T) => IdempotencyCompletion) => Promise<T>,
): Promise<T> {
  checkIdempotencyKey(request.key);
  const now = clock.now();
  const begun = await storage.idempotency.begin({
    ...request,
    now,
    lockedUntil: now + IDEMPOTENCY_LOCK_MS,
    expiresAt: now + IDEMPOTENCY_TTL_MS,
  });
  if (begun.state === "replay") return begun.response as T;
  if (begun.state === "mismatch") {
    throw new FlagpostError(
      "invalid_idempotent_request",
      "This Idempotency-Key was already used with a different request body",
    );
  }
  if (begun.state === "in_progress") {
    throw new FlagpostError(
      "concurrent_idempotent_requests",
      "A request with this Idempotency-Key is still being processed; retry later",
    );
  }

  let completedInline = false;
  const completion = (result: T): IdempotencyCompletion => {
    completedInline = true;
    return { scope: request.scope, key: request.key, response: result };
  };
  let result: T;
  // Keeps the claim alive while this process works on it (a heartbeat); a failed extension is
  // harmless while the work still ends within the lock, and is tried again at the next beat.
  const heartbeat = setInterval(() => {
    const lockedUntil = clock.now() + IDEMPOTENCY_LOCK_MS;
    storage.idempotency.extend(request.scope, request.key, request.fingerprint, lockedUntil).catch(() => undefined);
  }, IDEMPOTENCY_RENEW_MS);
  heartbeat.unref();
  try {
    result = await work(completion);
  } catch (error) {
    clearInterval(heartbeat);
    // If the release fails too, the claim lapses on its own after IDEMPOTENCY_LOCK_MS; the
    // caller must see the work's error, not the release's.
    await storage.idempotency.release(request.scope, request.key).catch(() => undefined);
    throw error;
  }
  clearInterval(heartbeat);
  if (!completedInline)
    await storage.idempotency.complete({ scope: request.scope, key: request.key, response: result });
  return result;
}
