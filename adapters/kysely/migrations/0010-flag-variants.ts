import { addColumnIfAbsent } from "./schema-steps.js";
import { schemaStep } from "./schema-step.js";

/**
 * Experiments (docs/experiments.md): the flag's variants as JSON text, null on flags stored
 * before this migration (read as "no variants"). Safe to run again over a half-finished run, since
 * MySQL cannot roll DDL back: there, a column already added is accepted. (Introspection is not used
 * to check: on PostgreSQL it sees other schemas' flagpost tables too.)
 */
export const flagVariantsMigration = schemaStep(async (db, engine, t) => {
  await addColumnIfAbsent(db, engine, "flagpost_flags", "variants", t.longText);
});
