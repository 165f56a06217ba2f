import type { Migration } from "kysely";
import { columnTypes, detectEngine, type AnyKysely } from "../dialect.js";
import { engineTraits } from "../engines/index.js";

/**
 * Experiments (docs/experiments.md): the flag's variants as JSON text, null on flags stored
 * before this migration (read as "no variants"). Safe to run again over a half-finished run, since
 * MySQL cannot roll DDL back: there, a column already added is accepted. (Introspection is not used
 * to check: on PostgreSQL it sees other schemas' flagpost tables too.)
 */
export const flagVariantsMigration: Migration = {
  async up(db: AnyKysely): Promise<void> {
    const engine = detectEngine(db);
    const add = db.schema.alterTable("flagpost_flags").addColumn("variants", columnTypes(engine).longText);
    try {
      await add.execute();
    } catch (error) {
      if (!engineTraits(engine).isDuplicateColumn(error)) throw error;
    }
  },
};
