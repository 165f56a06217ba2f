import type { Clock } from "../../../src/ports/clock.js";
import type { SignatureChecks } from "../../../src/ports/report-source.js";
import { invalidSignature } from "./provider-request.js";

/**
 * What stops a captured, validly signed provider request from being sent again (SignatureChecks,
 * src/ports/report-source.ts): the time the provider signed must be within
 * {@link SIGNATURE_WINDOW_MS} of ours (either way), and a single-use token (Mailgun's) is accepted
 * once. Mailgun's HMAC covers only timestamp + token, so without both, one old signature would
 * authenticate any body forever. The HTTP layer passes checks whose token memory is the storage's
 * (storedSignatureChecks in src/emails/report-sources.ts).
 */

/** How far a signed timestamp may be from our clock, in the past or the future. */
export const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

/**
 * How long a token is remembered: a timestamp up to the window ahead stays acceptable for the
 * window after it, so twice the window covers every moment its signature could still pass.
 */
export const TOKEN_MEMORY_MS = 2 * SIGNATURE_WINDOW_MS;

/** Throws invalid_signature unless `signedAtMs` (NaN when unreadable) is within the window of now. */
export function assertFresh(what: string, signedAtMs: number, clock: Clock): void {
  if (!Number.isFinite(signedAtMs)) throw invalidSignature(`${what} (its timestamp is not a time)`);
  const skew = signedAtMs - clock.now();
  if (skew < -SIGNATURE_WINDOW_MS) throw invalidSignature(`${what} (it is more than 5 minutes old)`);
  if (skew > SIGNATURE_WINDOW_MS) throw invalidSignature(`${what} (its timestamp is more than 5 minutes ahead)`);
}

/** A Unix time in whole seconds as the providers write it ("1741776067"); NaN for anything else. */
export function unixSecondsMs(value: string): number {
  return /^\d{1,12}$/.test(value) ? Number(value) * 1000 : Number.NaN;
}

/** Tokens remembered in this process only: for a source used on its own, without storage. */
export function memorySignatureChecks(clock: Clock): SignatureChecks {
  const seen = new Map<string, number>();
  return {
    clock,
    async firstUse(scope, token, ttlMs) {
      const now = clock.now();
      // Entries are kept in insertion order and share one lifetime: the expired ones come first.
      for (const [key, expiresAt] of seen) {
        if (expiresAt > now) break;
        seen.delete(key);
      }
      const key = JSON.stringify([scope, token]);
      if (seen.has(key)) return false;
      seen.set(key, now + ttlMs);
      return true;
    },
  };
}
