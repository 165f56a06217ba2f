import type { Flagpost } from "../../src/flagpost.js";
import type { OutboxDepth } from "../../src/ports/storage/emails.js";

/** A scrape waits at most this long for a storage count; past it that count's series are left out. */
export const OUTBOX_READ_TIMEOUT_MS = 2_000;
/** Scrapes within this long of a reading share it (several Prometheus replicas, a dashboard). */
export const OUTBOX_CACHE_MS = 5_000;

/**
 * A count read from storage at scrape time (GET /metrics, the overview), with a timeout (a scrape
 * must answer while storage hangs: the storage error counter says why), at most one read at a
 * time, and cached a few seconds so frequent scrapes cost one indexed count. Undefined when the
 * storage cannot count (`read` returns undefined), fails, or is late.
 */
export function cachedStorageReading<T>(
  fp: Flagpost,
  read: (now: number) => Promise<T> | undefined,
): () => Promise<{ value: T; at: number } | undefined> {
  let cached: { value: T; at: number } | undefined;
  let reading: Promise<{ value: T; at: number } | undefined> | undefined;
  return async () => {
    const now = fp.clock.now();
    if (cached && now - cached.at < OUTBOX_CACHE_MS) return cached;
    if (reading === undefined) {
      const started = read(now);
      if (started === undefined) return undefined;
      reading = started
        .then((value) => (cached = { value, at: now }))
        .catch(() => undefined)
        .finally(() => (reading = undefined));
    }
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

/** The outbox as GET /metrics shows it (one read of the `flagpost_emails_due` index). */
export function outboxReader(fp: Flagpost): () => Promise<{ depth: OutboxDepth; at: number } | undefined> {
  const read = cachedStorageReading(fp, (now) => fp.storage.emails.outboxDepth?.call(fp.storage.emails, now));
  return async () => {
    const reading = await read();
    return reading && { depth: reading.value, at: reading.at };
  };
}

/** Webhook deliveries still to be made, read like the outbox (one count over the claim index). */
export function pendingDeliveriesReader(fp: Flagpost): () => Promise<number | undefined> {
  const read = cachedStorageReading(fp, () =>
    fp.storage.webhookDeliveries.countPendingDeliveries?.call(fp.storage.webhookDeliveries),
  );
  return async () => (await read())?.value;
}
