import type { Migration } from "kysely";
import { type ColumnTypes, columnTypes, detectEngine, type Engine, type AnyKysely } from "../dialect.js";

/**
 * A migration that only moves forward, its body given the engine it runs on and that engine's
 * column types, which every step reads first.
 */
export function schemaStep(up: (db: AnyKysely, engine: Engine, t: ColumnTypes) => Promise<void>): Migration {
  return {
    async up(db: AnyKysely): Promise<void> {
      const engine = detectEngine(db);
      await up(db, engine, columnTypes(engine));
    },
  };
}
