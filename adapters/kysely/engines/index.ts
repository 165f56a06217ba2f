import type { EngineTraits } from "./engine-traits.js";
import { mysqlEngine } from "./mysql.js";
import { postgresEngine } from "./postgres.js";
import { sqliteEngine } from "./sqlite.js";

const ENGINES: Record<EngineTraits["name"], EngineTraits> = {
  sqlite: sqliteEngine,
  postgres: postgresEngine,
  mysql: mysqlEngine,
};

/** The traits of an engine by name (dialect.ts's detectEngine reads the name from a Kysely instance). */
export function engineTraits(name: EngineTraits["name"]): EngineTraits {
  return ENGINES[name];
}
