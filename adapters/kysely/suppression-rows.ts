import type { Transaction } from "kysely";
import type { SuppressionRecord, SuppressionRowStore } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { type Engine, insertIfAbsent } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import { toSuppression } from "./suppression-repository.js";
import type { FlagpostTables } from "./tables.js";

/**
 * Suppression rows in one transaction (unit-of-work.ts). Inserting is insert-unless-present
 * (ON CONFLICT DO NOTHING / INSERT IGNORE), so two writers adding one address store it once and
 * neither fails; `lock` is a locking read, which on MySQL sees a row another transaction committed
 * meanwhile (a plain read would see the transaction's snapshot). SQLite has one writer.
 */
export class KyselySuppressionRows implements SuppressionRowStore {
  readonly #trx: Transaction<FlagpostTables>;
  readonly #engine: Engine;

  constructor(trx: Transaction<FlagpostTables>, engine: Engine) {
    this.#trx = trx;
    this.#engine = engine;
  }

  async insertAbsent(entries: readonly SuppressionRecord[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((s) => ({
      id: s.id,
      email: s.email,
      origin: s.origin,
      source_id: s.sourceId ?? null,
      created_at: checkedEpochMs(s.createdAt, "createdAt"),
      reason: s.reason ?? null,
      bounce_type: s.bounceType ?? null,
      diagnostic: s.diagnostic ?? null,
    }));
    await insertIfAbsent(this.#engine, this.#trx.insertInto("flagpost_suppressions").values(rows)).execute();
  }

  /** One locking read per column (an OR of the two could scan, and on InnoDB lock, the whole table). */
  async lock(idsOrEmails: readonly string[]): Promise<SuppressionRecord[]> {
    if (idsOrEmails.length === 0) return [];
    const found = new Map<string, SuppressionRecord>();
    for (const column of ["email", "id"] as const) {
      const read = this.#trx
        .selectFrom("flagpost_suppressions")
        .selectAll()
        .where(column, "in", [...idsOrEmails]);
      for (const row of await engineTraits(this.#engine).lockRows(read).execute())
        found.set(row.id, toSuppression(row));
    }
    return [...found.values()];
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#trx
      .deleteFrom("flagpost_suppressions")
      .where("id", "in", [...ids])
      .execute();
  }
}
