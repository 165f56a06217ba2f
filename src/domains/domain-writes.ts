import type { DomainEvent, SendingDomainRecord, Storage } from "../ports/storage/index.js";

/**
 * What a change makes of the domain as read under its lock: the domain to store, or null for
 * "nothing to change" (nothing is written, no event stored). It may be called again when the
 * transaction is retried, so it only computes.
 */
export type DomainChange = (before: SendingDomainRecord) => SendingDomainRecord | null;

/** The events a change stores with it, from the domain as stored and as it was. */
export type DomainChangeEvents = (stored: SendingDomainRecord, before: SendingDomainRecord) => readonly DomainEvent[];

/**
 * Changes a sending domain on a unit of work (`storage.transaction`), composed once in the core:
 * reads the row under its lock, writes what `change` makes of it and stores `events` of the
 * result, all or nothing. Concurrent changes queue on the lock, each building on what the one
 * before it wrote, so a conditional change (pause only while not paused) happens, with its
 * event, once. Answers the domain as stored (as it is when `change` answers null); undefined when
 * no domain has this id.
 */
export function changeDomain(
  storage: Storage,
  id: string,
  change: DomainChange,
  events?: DomainChangeEvents,
): Promise<SendingDomainRecord | undefined> {
  return storage.transaction(async (tx) => {
    const before = await tx.domains.lock(id);
    if (!before) return undefined;
    const after = change(structuredClone(before));
    if (after === null) return before;
    const stored = { ...after, id };
    await tx.domains.replace(stored);
    if (events) await tx.domainEvents.record(events(stored, before));
    return stored;
  });
}
