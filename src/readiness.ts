import { errorFields } from "./ports/logger.js";
import type { Storage } from "./ports/storage/index.js";

/**
 * Readiness (`GET /ready`): whether this process can serve requests that need storage. Two checks,
 * each "ok" or what is wrong: `storage` (it answered within the timeout) and `migrations` (every
 * migration this code knows has run). A storage without `pendingMigrations` (memory) is always
 * ready.
 */

export interface ReadinessReport {
  ready: boolean;
  /** By check name: "ok", or why it failed. A check that could not run is left out. */
  checks: Record<string, string>;
  /** For the log, not for an unauthenticated caller: the storage's error (hosts, codes). */
  problem?: string;
}

/** How long storage has to answer the readiness read. */
export const READINESS_TIMEOUT_MS = 2_000;

/**
 * Checks readiness, at most one storage read at a time: a probe arriving while the previous read
 * is still under way (storage hanging) waits for that same read, so probes never pile up reads
 * on a storage that is not answering.
 */
export function readinessChecker(storage: Storage, timeoutMs = READINESS_TIMEOUT_MS): () => Promise<ReadinessReport> {
  let reading: Promise<string[]> | undefined;
  return async (): Promise<ReadinessReport> => {
    const pending = storage.pendingMigrations;
    if (pending === undefined) return { ready: true, checks: { storage: "ok", migrations: "ok" } };
    reading ??= pending.call(storage).finally(() => (reading = undefined));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    try {
      const answer = await Promise.race([reading, late]);
      if (answer === "late") return { ready: false, checks: { storage: `no answer within ${timeoutMs} ms` } };
      if (answer.length > 0)
        return { ready: false, checks: { storage: "ok", migrations: `not run: ${answer.join(", ")}` } };
      return { ready: true, checks: { storage: "ok", migrations: "ok" } };
    } catch (error) {
      return {
        ready: false,
        checks: { storage: "unavailable" },
        problem: String(errorFields(error).message ?? "failed"),
      };
    } finally {
      clearTimeout(timer);
    }
  };
}
