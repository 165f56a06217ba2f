import type { Kysely } from "kysely";
import type {
  EventFilter,
  EventKey,
  EventRecord,
  EventRepository,
  ExperimentQuery,
  ExperimentRepository,
  ExperimentTotals,
} from "../../src/ports/storage/index.js";
import { isHeavyEventQuery } from "../../src/events/index.js";
import type { Engine } from "./dialect.js";
import { KyselyEventRepository } from "./event-repository.js";
import { KyselyExperimentRepository } from "./experiment-repository.js";
import { translatedRepository } from "./storage-errors.js";
import type { FlagpostTables } from "./tables.js";

/**
 * Where heavy reads run (experiment results, event queries over a long window: the same set the
 * HTTP layer limits per key). They scan many rows; on the storage's own connections they would
 * hold the pool's connections, or on SQLite the event loop, for seconds (issue 24, item 5).
 */
export interface HeavyReader {
  experimentTotals(query: ExperimentQuery): Promise<ExperimentTotals>;
  queryEvents(filter: EventFilter, after: EventKey | undefined, limit: number): Promise<EventRecord[]>;
  close(): Promise<void>;
}

/**
 * The heavy reads over another Kysely instance on the same database (a small pool of its own), with
 * the very repositories the storage uses, so the answers are the same. `destroy`: close destroys it.
 */
export function heavyReaderOver(db: Kysely<FlagpostTables>, engine: Engine, destroy: boolean): HeavyReader {
  // Translated like the storage's own repositories, so a heavy read fails with the same errors.
  const experiments = translatedRepository(engine, KyselyExperimentRepository, db, engine);
  const events = translatedRepository(engine, KyselyEventRepository, db, engine);
  return {
    experimentTotals: (query) => experiments.experimentTotals(query),
    queryEvents: (filter, after, limit) => events.queryEvents(filter, after, limit),
    close: async () => {
      if (destroy) await db.destroy();
    },
  };
}

/** The experiment repository whose every read runs on `reader`. */
export function heavyExperiments(reader: HeavyReader): ExperimentRepository {
  return { experimentTotals: (query) => reader.experimentTotals(query) };
}

/** The event repository with its long-window queries sent to `reader`; writes and short reads stay. */
export function heavyRoutedEvents(events: EventRepository, reader: HeavyReader): EventRepository {
  return {
    appendEvents: (batch, completion) => events.appendEvents(batch, completion),
    queryEvents: (filter, after, limit) =>
      // The storage has no clock: an open upper bound is now by the system clock.
      isHeavyEventQuery(filter, Date.now())
        ? reader.queryEvents(filter, after, limit)
        : events.queryEvents(filter, after, limit),
    purgeEventsBefore: (before) => events.purgeEventsBefore(before),
    deleteEventsByUser: (userId) => events.deleteEventsByUser(userId),
  };
}
