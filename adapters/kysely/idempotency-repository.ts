import { createHash } from "node:crypto";
import type {
  EpochMs,
  IdempotencyBegin,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyRepository,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import { type Engine, encodeBoolean, insertIfAbsent } from "./dialect.js";
import type { StorageActions } from "./storage-errors.js";
import { toBoolean, toNumber } from "./row-codec.js";
import { EngineRepository } from "./engine-repository.js";
import type { Db } from "./tables.js";
import { retryingDeadlocks } from "./transaction.js";

/** How often `begin` starts over when the record changes between its steps (released, purged, lapsed). */
const MAX_ROUNDS = 5;

/**
 * The row id of (scope, key): SHA-256 hex of the JSON pair. Exact on every engine (no collation,
 * no trailing-space padding, no index-length limit on 256-character keys).
 */
export function idempotencyRowId(scope: string, key: string): string {
  return createHash("sha256")
    .update(JSON.stringify([scope, key]))
    .digest("hex");
}

/**
 * Stores the result of a started claim. Takes a Kysely or a Transaction, so that a repository whose
 * write completes a claim can do both in one transaction.
 */
export async function completeClaim(
  db: Db,
  engine: Engine,
  { scope, key, response }: IdempotencyCompletion,
): Promise<void> {
  await db
    .updateTable("flagpost_idempotency")
    .set({ completed: encodeBoolean(engine, true), response: JSON.stringify(response) ?? null })
    .where("id", "=", idempotencyRowId(scope, key))
    .execute();
}

/**
 * Idempotency records in `flagpost_idempotency`. `begin` decides races with statements that each
 * succeed for exactly one caller (an insert that does nothing when the row exists, UPDATEs whose
 * WHERE re-checks the condition under the row lock), never with a read followed by a write.
 */
export class KyselyIdempotencyRepository extends EngineRepository implements IdempotencyRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyIdempotencyRepository> = {
    begin: "claim the idempotency key",
    extend: "extend the idempotency claim",
    complete: "store the idempotent response",
    release: "release the idempotency key",
    purgeExpired: "purge expired idempotency keys",
  };

  async begin(claim: IdempotencyClaim): Promise<IdempotencyBegin> {
    const id = idempotencyRowId(claim.scope, claim.key);
    const now = checkedEpochMs(claim.now, "now");
    const lockedUntil = checkedEpochMs(claim.lockedUntil, "lockedUntil");
    const expiresAt = checkedEpochMs(claim.expiresAt, "expiresAt");
    const fresh = {
      scope: claim.scope,
      idempotency_key: claim.key,
      fingerprint: claim.fingerprint,
      locked_until: lockedUntil,
      expires_at: expiresAt,
      completed: encodeBoolean(this.engine, false),
      response: null,
      created_at: now,
    };
    const db = this.db;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      // 1. A key never seen: exactly one racing insert adds the row.
      // INSERT IGNORE does not ignore a deadlock, which racing first claims can meet on
      // MariaDB/MySQL (retryingDeadlocks says how): the victim runs again.
      const inserted = await retryingDeadlocks(this.engine, () =>
        insertIfAbsent(this.engine, db.insertInto("flagpost_idempotency").values({ id, ...fresh })).executeTakeFirst(),
      );
      if (inserted.numInsertedOrUpdatedRows !== undefined && inserted.numInsertedOrUpdatedRows > 0n)
        return { state: "started" };

      // 2. An expired record counts as absent: start afresh over it.
      const renewed = await db
        .updateTable("flagpost_idempotency")
        .set(fresh)
        .where("id", "=", id)
        .where("expires_at", "<=", now)
        .executeTakeFirst();
      if (renewed.numUpdatedRows > 0n) return { state: "started" };

      // 3. A pending claim with this fingerprint whose owner let the lock lapse: take it over.
      const taken = await db
        .updateTable("flagpost_idempotency")
        .set({ locked_until: lockedUntil })
        .where("id", "=", id)
        .where("fingerprint", "=", claim.fingerprint)
        .where("completed", "=", encodeBoolean(this.engine, false))
        .where("locked_until", "<=", now)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      if (taken.numUpdatedRows > 0n) return { state: "started" };

      // 4. Someone else holds the key: say how.
      const row = await db
        .selectFrom("flagpost_idempotency")
        .select(["fingerprint", "completed", "response", "locked_until", "expires_at"])
        .where("id", "=", id)
        .executeTakeFirst();
      if (!row || toNumber(row.expires_at) <= now) continue; // released, purged or expired meanwhile
      if (row.fingerprint !== claim.fingerprint) return { state: "mismatch" };
      if (toBoolean(row.completed))
        return {
          state: "replay",
          response: row.response === null ? undefined : (JSON.parse(row.response) as unknown),
        };
      if (toNumber(row.locked_until) > now) return { state: "in_progress" };
      // The lock lapsed between steps 3 and 4: go round again.
    }
    return { state: "in_progress" }; // the record kept changing under us: others are busy with it
  }

  async extend(scope: string, key: string, fingerprint: string, lockedUntil: EpochMs): Promise<boolean> {
    const until = checkedEpochMs(lockedUntil, "lockedUntil");
    const pending = encodeBoolean(this.engine, false);
    const id = idempotencyRowId(scope, key);
    const result = await this.db
      .updateTable("flagpost_idempotency")
      .set({ locked_until: until })
      .where("id", "=", id)
      .where("fingerprint", "=", fingerprint)
      .where("completed", "=", pending)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) return true;
    // MySQL counts only changed rows: an extension to the same time changes none.
    const row = await this.db
      .selectFrom("flagpost_idempotency")
      .select("locked_until")
      .where("id", "=", id)
      .where("fingerprint", "=", fingerprint)
      .where("completed", "=", pending)
      .executeTakeFirst();
    return row !== undefined && toNumber(row.locked_until) === until;
  }

  async complete(completion: IdempotencyCompletion): Promise<void> {
    await completeClaim(this.db, this.engine, completion);
  }

  async release(scope: string, key: string): Promise<void> {
    await this.db
      .deleteFrom("flagpost_idempotency")
      .where("id", "=", idempotencyRowId(scope, key))
      .where("completed", "=", encodeBoolean(this.engine, false))
      .execute();
  }

  async purgeExpired(now: EpochMs): Promise<number> {
    const at = checkedEpochMs(now, "now");
    const result = await this.db.deleteFrom("flagpost_idempotency").where("expires_at", "<", at).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
