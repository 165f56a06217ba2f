import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type {
  EpochMs,
  EventFilter,
  EventKey,
  EventRecord,
  EventRepository,
  IdempotencyCompletion,
  NewEvent,
} from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { Engine } from "./dialect.js";
import { engineTraits } from "./engines/index.js";
import type { StorageActions } from "./storage-errors.js";
import { type EventRowValues, ID_FORM, insertEventRows, NAME_ID, WIDTH } from "./event-insert.js";
import { EventNames } from "./event-names.js";
import { completeClaim } from "./idempotency-repository.js";
import { checkedEventId, eventIdInto, eventIdParam, eventIdText, toNumber, uuidTimeMs } from "./row-codec.js";
import type { FlagpostTables } from "./tables.js";
import type { Db } from "./tables.js";
import { EngineRepository } from "./engine-repository.js";

type Where = ExpressionBuilder<FlagpostTables, "flagpost_events">;

/** Rows a purge or a deletion removes per statement, so no single transaction holds locks for long. */
const DELETE_CHUNK = 10_000;

/**
 * Events in `flagpost_events` (see migrations/0022-event-names.ts for the columns and indexes), their
 * names interned in `flagpost_event_names` (event-names.ts). Appends are one transaction however
 * many statements they take (a new name is added before, on its own: an unused name is harmless);
 * reads are keyset pages on (ts, id).
 */
export class KyselyEventRepository extends EngineRepository implements EventRepository {
  /** How each method's driver errors read (storage-errors.ts translates them). */
  static readonly actions: StorageActions<KyselyEventRepository> = {
    appendEvents: { action: "store the events", conflict: () => "An event with one of these ids already exists" },
    queryEvents: "query events",
    purgeEventsBefore: "purge events",
    deleteEventsByUser: "delete the user's events",
  };

  readonly #names: EventNames;

  constructor(db: Db, engine: Engine) {
    super(db, engine);
    this.#names = new EventNames(db, engine);
  }

  async appendEvents(events: readonly NewEvent[], completion?: IdempotencyCompletion): Promise<void> {
    if (events.length === 0 && !completion) return;
    // Every value is converted before the first statement, so a refused time fails the batch early.
    const values: EventRowValues = new Array(events.length * WIDTH);
    let receivedMs: number | undefined;
    let unnamed: number[] | undefined;
    const idForm = ID_FORM[this.engine];
    const idMemory = idForm === "views" ? new ArrayBuffer(16 * events.length) : undefined;
    for (let i = 0, at = 0; i < events.length; i++) {
      const e = events[i]!;
      // A batch usually shares one time of receipt: check it once.
      if (e.receivedAt !== receivedMs) receivedMs = checkedEpochMs(e.receivedAt, "receivedAt");
      const nameId = this.#names.cachedId(e.event);
      if (nameId === undefined) (unnamed ??= []).push(i);
      // In the order of event-insert.ts's COLUMNS: id, ts, received_at, name_id, user_id, properties.
      values[at++] =
        idForm === "text"
          ? checkedEventId(e.id)
          : idMemory
            ? eventIdInto(e.id, new Uint8Array(idMemory, 16 * i, 16))
            : eventIdParam(this.engine, e.id);
      values[at++] = checkedEpochMs(e.timestamp, "timestamp");
      // The UUIDv7 made at receipt carries this time already (the id's form was checked above).
      values[at++] = uuidTimeMs(e.id) === receivedMs ? null : receivedMs;
      values[at++] = nameId ?? 0;
      values[at++] = e.userId;
      values[at++] = e.propertiesJson === "{}" ? null : e.propertiesJson;
    }
    if (unnamed) {
      await this.#names.add(unnamed.map((i) => events[i]!.event));
      for (const i of unnamed) values[i * WIDTH + NAME_ID] = this.#names.cachedId(events[i]!.event)!;
    }
    await insertEventRows(
      this.db,
      this.engine,
      values,
      completion && ((trx) => completeClaim(trx, this.engine, completion)),
    );
  }

  async queryEvents(filter: EventFilter, after: EventKey | undefined, limit: number): Promise<EventRecord[]> {
    const from = filter.from === undefined ? undefined : checkedEpochMs(filter.from, "from");
    const to = filter.to === undefined ? undefined : checkedEpochMs(filter.to, "to");
    const afterTs = after === undefined ? undefined : checkedEpochMs(after.timestamp, "after.timestamp");
    const afterId = after === undefined ? undefined : eventIdParam(this.engine, after.id, "after.id");
    // The name filter is the name's id: a name no event ever had matches nothing.
    const nameId = filter.event === undefined ? undefined : await this.#names.lookup(filter.event);
    if (filter.event !== undefined && nameId === undefined) return [];
    const traits = engineTraits(this.engine);
    let query = this.db
      .selectFrom("flagpost_events")
      .select(["id", "name_id", "user_id", "ts", "received_at"])
      .select(traits.fromJsonColumn("properties", "properties"));
    // One name: the order of the (name_id, ts) index where the engine needs it said (engines/event-name.ts).
    if (nameId !== undefined && traits.eventName.orderByName) query = query.orderBy("name_id", "desc");
    query = query.orderBy("ts", "desc").orderBy("id", "desc").limit(limit);
    if (filter.userId !== undefined) query = query.where((eb) => this.#exactly(eb, "user_id", filter.userId!));
    if (nameId !== undefined) query = query.where((eb) => traits.eventName.where(eb as never, nameId));
    if (from !== undefined) query = query.where("ts", ">=", from);
    if (to !== undefined) query = query.where("ts", "<", to);
    if (afterId !== undefined) query = afterKey(query, afterTs!, afterId);
    const rows = await query.execute();
    const nameIds = rows.map((row) => toNumber(row.name_id));
    // Names another process added since this one last read them.
    if (nameIds.some((n) => this.#names.cachedName(n) === undefined)) await this.#names.loadIds(nameIds);
    return rows.map((row, i) => {
      const id = eventIdText(row.id);
      return {
        id,
        event: this.#names.cachedName(nameIds[i]!)!,
        userId: row.user_id,
        timestamp: toNumber(row.ts),
        receivedAt: row.received_at === null ? uuidTimeMs(id) : toNumber(row.received_at),
        properties: (row.properties === null ? {} : JSON.parse(row.properties)) as Record<string, unknown>,
      };
    });
  }

  async purgeEventsBefore(before: EpochMs): Promise<number> {
    const cutoff = checkedEpochMs(before, "before");
    return this.#deleteInChunks((eb) => eb("ts", "<", cutoff));
  }

  async deleteEventsByUser(userId: string): Promise<number> {
    return this.#deleteInChunks((eb) => this.#exactly(eb, "user_id", userId));
  }

  /** `column = value`, exactly (engines/: MySQL compares byte lengths too). */
  #exactly(eb: Where, column: "user_id", value: string): Expression<SqlBool> {
    return engineTraits(this.engine).exactly(eb as never, column, value);
  }

  /** Deletes matching rows DELETE_CHUNK at a time, each chunk in its own short transaction. */
  async #deleteInChunks(where: (eb: Where) => Expression<SqlBool>): Promise<number> {
    let total = 0;
    for (;;) {
      let deleted: bigint;
      if (!engineTraits(this.engine).limitInSubquery) {
        // MySQL refuses LIMIT inside an IN subquery, but has DELETE … LIMIT.
        const result = await this.db.deleteFrom("flagpost_events").where(where).limit(DELETE_CHUNK).executeTakeFirst();
        deleted = result.numDeletedRows;
      } else {
        const result = await this.db
          .deleteFrom("flagpost_events")
          .where("id", "in", (eb) => eb.selectFrom("flagpost_events").select("id").where(where).limit(DELETE_CHUNK))
          .executeTakeFirst();
        deleted = result.numDeletedRows;
      }
      total += Number(deleted);
      if (deleted < BigInt(DELETE_CHUNK)) return total;
    }
  }
}

/**
 * Rows strictly after (afterTs, afterId) in newest-first order. Written as `ts <= t AND (ts < t OR
 * id < i)` rather than a row-value comparison: every engine turns the first part into an index range.
 */
function afterKey<O>(
  query: SelectQueryBuilder<FlagpostTables, "flagpost_events", O>,
  afterTs: number,
  afterId: string | Buffer,
) {
  return query.where("ts", "<=", afterTs).where((eb) => eb.or([eb("ts", "<", afterTs), eb("id", "<", afterId)]));
}
