import type { Flagpost, OutboxDepth } from "../../src/internal.js";

/** A scrape waits at most this long for the outbox count; past it the outbox series are left out. */
export const OUTBOX_READ_TIMEOUT_MS = 2_000;
/** Scrapes within this long of a reading share it (several Prometheus replicas, a dashboard). */
export const OUTBOX_CACHE_MS = 5_000;

/**
 * The outbox as GET /metrics shows it: read from storage at scrape time, with a timeout (a scrape
 * must answer while storage hangs: the storage error counter says why), at most one read at a
 * time, and cached a few seconds so frequent scrapes cost one indexed count.
 */
export function outboxReader(fp: Flagpost): () => Promise<{ depth: OutboxDepth; at: number } | undefined> {
  let cached: { depth: OutboxDepth; at: number } | undefined;
  let reading: Promise<{ depth: OutboxDepth; at: number } | undefined> | undefined;
  return async () => {
    const count = fp.storage.emails.outboxDepth;
    if (count === undefined) return undefined;
    const now = fp.clock.now();
    if (cached && now - cached.at < OUTBOX_CACHE_MS) return cached;
    reading ??= count
      .call(fp.storage.emails, new Date(now).toISOString())
      .then((depth) => (cached = { depth, at: now }))
      .catch(() => undefined)
      .finally(() => (reading = undefined));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), OUTBOX_READ_TIMEOUT_MS)),
    );
    try {
      return await Promise.race([reading, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
