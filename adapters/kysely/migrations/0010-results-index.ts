import { type RawBuilder, sql } from "kysely";
import type { Engine } from "../dialect.js";
import { schemaStep } from "./schema-step.js";

/**
 * Experiment results find an experiment's assignment events by `properties.experimentId`. An
 * expression index on it (partial on PostgreSQL: only events that carry one) turns that search
 * from a scan of every event into a range read. The expressions MUST stay identical to those of
 * experiment-repository.ts. MySQL/MariaDB get none (MariaDB has no expression indexes): there the
 * results query scans the events table; see docs/experiments.md.
 *
 * The price is paid on insert: SQLite and PostgreSQL read the JSON once more per event stored.
 */
const RESULTS_INDEX: Record<Engine, RawBuilder<unknown> | undefined> = {
  sqlite: sql`create index if not exists flagpost_events_experiment on flagpost_events (json_extract(properties, '$.experimentId'), user_id)`,
  postgres: sql`create index if not exists flagpost_events_experiment on flagpost_events ((properties::json ->> 'experimentId'), user_id)
      where (properties::json ->> 'experimentId') is not null`,
  mysql: undefined,
};

export const experimentIndexMigration = schemaStep(async (db, engine) => {
  await RESULTS_INDEX[engine]?.execute(db);
});
