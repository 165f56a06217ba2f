import { setTimeout as delay } from "node:timers/promises";
import { FlagpostError } from "../errors.js";

/**
 * The one backoff of the codebase: how long to wait before trying again after `attempt` failed
 * attempts. Everything that retries (the outbox, webhook deliveries, the event buffer, the remote
 * flag client, the PostgreSQL flag watch, SQLite lock and deadlock retries) asks this file, and
 * `retrying` is the one loop that retries a call on errors the next try clears by itself.
 *
 * Two shapes:
 * - exponential: a ceiling of `initialMs × 2^(attempt−1)`, capped at `maxMs`, with jitter so that
 *   many failures at once (an SMTP server restarting) do not all come back at the same moment:
 *   "full" draws uniformly in [0, ceiling], "equal" in [ceiling/2, ceiling] (never retries at once),
 *   "none" waits the ceiling;
 * - schedule: explicit delays per attempt (`parseSchedule("5s,5m,30m,2h")`), the last one repeated;
 *   webhook-style retry tables. `spread` (a fraction, default 0) draws each delay uniformly in
 *   [delay × (1 − spread), delay × (1 + spread)], so retries of many failures spread out.
 */
export type Backoff =
  | { kind: "exponential"; initialMs: number; maxMs: number; jitter: "full" | "equal" | "none" }
  | { kind: "schedule"; delaysMs: readonly number[]; spread?: number };

/** Exponential backoff; `jitter` defaults to "full". */
export function exponential(initialMs: number, maxMs: number, jitter: "full" | "equal" | "none" = "full"): Backoff {
  return { kind: "exponential", initialMs, maxMs, jitter };
}

/** The largest delay after `attempt` failed attempts (1-based; below 1 counts as 1). */
export function backoffCeiling(backoff: Backoff, attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  if (backoff.kind === "schedule")
    return (backoff.delaysMs[Math.min(n, backoff.delaysMs.length) - 1] ?? 0) * (1 + (backoff.spread ?? 0));
  // 2^30 is far past any cap; the bound keeps the power finite for absurd attempt counts.
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(30, n - 1));
}

/** The delay in ms before the next attempt, after `attempt` failed ones (1-based). */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(backoff, attempt);
  if (backoff.kind === "schedule") {
    const spread = backoff.spread ?? 0;
    const nominal = ceiling / (1 + spread);
    return nominal * (1 - spread + random() * 2 * spread);
  }
  if (backoff.jitter === "none") return ceiling;
  if (backoff.jitter === "equal") return ceiling / 2 + random() * (ceiling / 2);
  return random() * ceiling;
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a retry schedule such as `"5s,5m,30m,2h"` (units ms, s, m, h, d; a bare number is ms)
 * into a schedule backoff. Throws `FlagpostError("validation_error")` naming the bad entry.
 */
export function parseSchedule(text: string): Extract<Backoff, { kind: "schedule" }> {
  const delaysMs = text.split(",").map((part) => {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(part);
    if (!match)
      throw new FlagpostError(
        "validation_error",
        `retry schedule entry ${JSON.stringify(part.trim())} is not a duration such as 5s, 5m or 2h`,
      );
    return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? "ms"]!);
  });
  return { kind: "schedule", delaysMs };
}

/** Throws `FlagpostError("validation_error")` when the backoff cannot be used; `name` prefixes the message. */
export function checkBackoff(backoff: Backoff, name: string): void {
  if (backoff.kind === "schedule") {
    if (backoff.delaysMs.length === 0 || !backoff.delaysMs.every((d) => Number.isFinite(d) && d >= 0)) {
      throw new FlagpostError("validation_error", `${name} must list at least one delay of 0 ms or more`);
    }
    const spread = backoff.spread ?? 0;
    if (!(spread >= 0 && spread < 1))
      throw new FlagpostError("validation_error", `${name}: the spread must be in [0, 1)`);
    return;
  }
  if (!Number.isFinite(backoff.initialMs) || backoff.initialMs < 0)
    throw new FlagpostError("validation_error", `${name}: the first delay must be a number of at least 0`);
  if (!Number.isFinite(backoff.maxMs) || backoff.maxMs < backoff.initialMs)
    throw new FlagpostError("validation_error", `${name}: the longest delay must be at least the first`);
}

/**
 * Runs `work`, and again after `backoff`'s delay while it fails with an error `retryOn` accepts,
 * `attempts` times in all; then the last error is thrown. For errors that the next try clears by
 * itself (a deadlock victim, a busy SQLite lock).
 */
export async function retrying<T>(
  work: () => Promise<T>,
  options: { attempts: number; backoff: Backoff; retryOn: (error: unknown) => boolean },
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= options.attempts || !options.retryOn(error)) throw error;
      await delay(backoffDelay(options.backoff, attempt));
    }
  }
}
