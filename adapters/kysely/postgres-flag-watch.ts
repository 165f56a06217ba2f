import type { AnyKysely } from "./dialect.js";
import { sql } from "kysely";
import { backoffDelay, exponential } from "../../src/jobs/index.js";
import type { FlagWatcher, FlagWatchListener } from "../../src/ports/storage/index.js";

/**
 * Flag change notifications on PostgreSQL. Migration 0004 adds a trigger that runs
 * `pg_notify('flagpost_flags', <schema>)` whenever a write bumps the flags revision, so the
 * notice is sent when (and only if) the write commits. Here one dedicated connection LISTENs on
 * that channel and keeps only notices from this storage's schema (several flagpost schemas may
 * share a database). A lost connection is replaced with backoff; the caller polls meanwhile.
 */

export const FLAG_CHANNEL = "flagpost_flags";

/** The subset of a pg `Client` (or a `PoolClient` from `pool.connect()`) that the watch uses. */
export interface PgListenConnection {
  query(text: string): Promise<unknown>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  /** A PoolClient's: the watch destroys the connection rather than give a LISTENing one back. */
  release?(destroy?: boolean): void;
  /** A Client's. */
  end?(): Promise<void>;
}

/**
 * Opens the dedicated connection, already connected: `() => pool.connect()` (it keeps one pool
 * slot for as long as flagpost runs) or `async () => { const c = new pg.Client(url); await c.connect(); return c; }`.
 */
export type PgListenConnect = () => Promise<PgListenConnection>;

/** Reconnect delays: 500 ms doubling to 30 s, equal jitter. */
const RECONNECT_BACKOFF = exponential(500, 30_000, "equal");

async function dispose(connection: PgListenConnection): Promise<void> {
  try {
    if (connection.release) connection.release(true);
    else await connection.end?.();
  } catch {
    // Already broken: nothing left to release.
  }
}

export function watchPostgresFlags(db: AnyKysely, connect: PgListenConnect, listener: FlagWatchListener): FlagWatcher {
  let closed = false;
  let current: PgListenConnection | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let schema: string | undefined;

  const lost = (connection: PgListenConnection | undefined, error: unknown) => {
    if (connection !== current) return; // a connection already given up on
    if (current) void dispose(current);
    current = undefined;
    if (closed) return;
    listener.lost(error);
    timer = setTimeout(() => void open(), backoffDelay(RECONNECT_BACKOFF, ++attempt));
    timer.unref?.();
  };

  const open = async () => {
    timer = undefined;
    let connection: PgListenConnection | undefined;
    try {
      schema ??= (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
      connection = await connect();
      if (closed) return void (await dispose(connection));
      const mine = connection;
      mine.on("error", (error) => lost(mine, error));
      mine.on("end", () => lost(mine, new Error("the LISTEN connection ended")));
      mine.on("notification", (message) => {
        if (message.channel === FLAG_CHANNEL && (!message.payload || message.payload === schema)) listener.changed();
      });
      await mine.query(`LISTEN ${FLAG_CHANNEL}`);
      if (closed) return void (await dispose(mine));
      current = mine;
      attempt = 0;
      listener.listening();
    } catch (error) {
      if (connection) void dispose(connection);
      current = undefined;
      lost(undefined, error);
    }
  };

  void open();
  return {
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const connection = current;
      current = undefined;
      if (connection) await dispose(connection);
    },
  };
}
