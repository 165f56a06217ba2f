import type { Transaction } from "kysely";
import type { DomainRowStore, SendingDomainRecord } from "../../src/ports/storage/index.js";
import type { Engine } from "./dialect.js";
import { type DomainTables, toDomain, toDomainRow } from "./domain-repository.js";
import { engineTraits } from "./engines/index.js";
import type { FlagpostTables } from "./tables.js";

/**
 * Domain rows in one transaction (unit-of-work.ts). PostgreSQL and MySQL lock the row (SELECT …
 * FOR UPDATE); SQLite has no row locks, so a no-op UPDATE takes the database's write lock before
 * the read (as flag-rows.ts does, and for the same reason).
 */
export class KyselyDomainRows implements DomainRowStore {
  readonly #trx: Transaction<DomainTables>;
  readonly #engine: Engine;

  constructor(trx: Transaction<FlagpostTables>, engine: Engine) {
    this.#trx = trx as unknown as Transaction<DomainTables>;
    this.#engine = engine;
  }

  async lock(id: string): Promise<SendingDomainRecord | undefined> {
    if (engineTraits(this.#engine).oneWriter) {
      const touched = await this.#trx
        .updateTable("flagpost_domains")
        .set((eb) => ({ id: eb.ref("id") }))
        .where("id", "=", id)
        .executeTakeFirst();
      if (touched.numUpdatedRows === 0n) return undefined;
    }
    const read = this.#trx.selectFrom("flagpost_domains").selectAll().where("id", "=", id);
    const row = await engineTraits(this.#engine).lockRows(read).executeTakeFirst();
    return row && toDomain(row);
  }

  async replace(domain: SendingDomainRecord): Promise<void> {
    const { id, ...row } = toDomainRow(this.#engine, domain);
    await this.#trx.updateTable("flagpost_domains").set(row).where("id", "=", id).execute();
  }
}
