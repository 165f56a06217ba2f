import type { IdempotencyRepository } from "./ports/storage/index.js";

/**
 * Remembers single-use tokens (a Mailgun webhook's `signature.token`) in the idempotency store,
 * which every backend already keeps with an expiry and purges: a token is a key in its own scope
 * whose record is completed at once, so any later claim of it, by this process or another sharing
 * the storage, is answered "replay" (or "in_progress" while the first is mid-way) until it expires.
 */
export async function firstUse(
  idempotency: IdempotencyRepository,
  scope: string,
  token: string,
  nowMs: number,
  ttlMs: number,
): Promise<boolean> {
  const expiresAt = nowMs + ttlMs;
  const begun = await idempotency.begin({
    scope,
    key: token,
    fingerprint: "used",
    now: nowMs,
    // Locked for its whole life: a pending claim whose lock lapsed could otherwise be "taken over".
    lockedUntil: expiresAt,
    expiresAt,
  });
  if (begun.state !== "started") return false;
  await idempotency.complete({ scope, key: token, response: null });
  return true;
}
