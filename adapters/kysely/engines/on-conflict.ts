import { sql } from "kysely";
import type { EngineTraits } from "./engine-traits.js";

/**
 * Upserts as SQLite and PostgreSQL write them, `INSERT … ON CONFLICT`, where the row that was
 * refused is `excluded` (MySQL has ON DUPLICATE KEY UPDATE instead: mysql.ts).
 */
export const onConflictUpserts: Pick<EngineTraits, "upsert" | "skipDuplicateId" | "incoming"> = {
  upsert: (query, keys, set) =>
    query.onConflict((conflict) => conflict.columns(keys as never).doUpdateSet(set as never)),
  skipDuplicateId: () => sql`on conflict (id) do nothing`,
  incoming: (column) => sql.ref(`excluded.${column}`),
};
