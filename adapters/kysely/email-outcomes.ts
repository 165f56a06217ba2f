import type { Insertable } from "kysely";
import type { DomainEvent, EmailOutcomeWrite, EmailTransition } from "../../src/ports/storage/index.js";
import type { AnyKysely, Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { recordDomainEvents } from "./domain-events.js";
import { eventRow, INSERT_CHUNK, type Trx } from "./email-rows.js";
import { groupTransition, retryUpdate, transitionKind, transitionUpdate, updatedVersion } from "./email-updates.js";
import type { EmailEventsTable } from "./tables.js";
import { insertRows } from "./compiled-once.js";

/**
 * A worker's outcomes in one transaction: the conditional UPDATEs, then every event in one
 * multi-row INSERT. On SQLite and PostgreSQL, transitions of the same kind (a worker's "sent"
 * outcomes, say: see transitionKind) are one UPDATE for the group, each row's timestamps chosen
 * by id, its RETURNING naming the rows it changed; retries, and everything on MySQL (no
 * RETURNING), are one UPDATE per email. Rows are taken in id order, so two batches (or a batch
 * and a report) never wait for each other in a cycle. Returns, in the order given, whether each
 * outcome applied.
 */
export async function recordOutcomesIn(
  trx: Trx,
  engine: Engine,
  outcomes: readonly EmailOutcomeWrite[],
): Promise<boolean[]> {
  const order = outcomes.map((o, i) => ({ o, i })).sort((a, b) => (a.o.id < b.o.id ? -1 : a.o.id > b.o.id ? 1 : 0));
  const applied: boolean[] = new Array(outcomes.length).fill(false);
  const events: Insertable<EmailEventsTable>[] = [];
  const domainEvents: DomainEvent[] = [];
  const single: { o: EmailOutcomeWrite; i: number }[] = [];
  const groups = new Map<string, { o: { id: string; transition: EmailTransition }; i: number }[]>();
  for (const entry of order) {
    const { o } = entry;
    if (!("transition" in o)) single.push(entry);
    else if (o.transition.from.length === 0) continue;
    else if (!engineTraits(engine).updateReturning) single.push(entry);
    else {
      const kind = transitionKind(o.transition);
      const group = groups.get(kind);
      if (group === undefined) groups.set(kind, [{ o, i: entry.i }]);
      else group.push({ o, i: entry.i });
    }
  }
  for (const group of groups.values()) {
    const versions = await groupTransition(
      trx,
      engine,
      group.map((g) => g.o),
    );
    for (const { o, i } of group) {
      const version = versions.get(o.id);
      if (version === undefined) continue;
      applied[i] = true;
      events.push(eventRow(o.id, version, o.transition.event));
      domainEvents.push(...(o.transition.events ?? []));
    }
  }
  for (const { o, i } of single) {
    const update = "transition" in o ? transitionUpdate(trx, o.id, o.transition) : retryUpdate(trx, o.id, o.retry);
    const version = await updatedVersion(trx, engine, o.id, update);
    if (version === undefined) continue;
    applied[i] = true;
    const change = "transition" in o ? o.transition : o.retry;
    events.push(eventRow(o.id, version, change.event));
    domainEvents.push(...(change.events ?? []));
  }
  for (let i = 0; i < events.length; i += INSERT_CHUNK)
    await insertRows(trx as unknown as AnyKysely, engine, "flagpost_email_events", events.slice(i, i + INSERT_CHUNK));
  await recordDomainEvents(trx, engine, domainEvents);
  return applied;
}
