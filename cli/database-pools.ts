import type { MysqlPool, PostgresPool } from "kysely";
import type * as Mysql2 from "mysql2";
import type PgModule from "pg";
import { errorFields, type Logger } from "../src/ports/logger.js";

/**
 * The PostgreSQL and MySQL pools `flagpost serve` hands to Kysely, made so that no database
 * event can end the process and no storage call waits without bound:
 *
 * - every pool and every connection has an `'error'` listener. pg emits `'error'` on an idle
 *   client whose server went away (restart, failover, `pg_terminate_backend`, a cut proxy) and on a
 *   checked-out client whose socket dies; an EventEmitter with no listener throws it, which ends
 *   the process. The query in flight, if any, still gets the error.
 * - a connect timeout and a statement timeout: a server that stops answering (a partition, a
 *   black-holed proxy) fails the call after that long instead of holding the request for minutes.
 *   On PostgreSQL the statement timeout is set on both sides: `statement_timeout` lets the server
 *   cancel a slow statement, `query_timeout` covers a server that is no longer heard at all.
 * - a connection that failed below SQL (a timeout, a lost socket) is dropped instead of being put
 *   back in the pool, where the next caller would queue behind a query that never ends.
 */

export interface StorageTimeouts {
  /** How long opening a connection (or waiting for a free one) may take. */
  connectTimeoutMs: number;
  /** How long one statement may take. */
  statementTimeoutMs: number;
}

export const DEFAULT_STORAGE_TIMEOUTS: Readonly<StorageTimeouts> = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
};

type Pg = typeof PgModule;

/**
 * A pg Pool with the listeners and timeouts above, as Kysely's PostgresDialect takes it. `size`:
 * its most connections (pg's default, 10, when unset).
 */
export function postgresPool(
  pg: Pg,
  url: string,
  timeouts: StorageTimeouts,
  logger: Logger,
  size?: number,
): PostgresPool {
  const pool = new pg.Pool({
    connectionString: url,
    ...(size !== undefined && { max: size }),
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    query_timeout: timeouts.statementTimeoutMs,
    // A transaction left open by a client that went away releases its locks after this long.
    idle_in_transaction_session_timeout: timeouts.statementTimeoutMs,
    keepAlive: true,
  });
  // pg-pool re-emits an idle client's error here, and then discards that client.
  pool.on("error", (error) =>
    logger.warn("storage: a PostgreSQL connection failed; the pool replaces it", errorFields(error)),
  );
  // Which loss each connection was opened after (see `retired` below).
  const openedAfterLoss = new WeakMap<PgModule.PoolClient, number>();
  let losses = 0;
  // A checked-out client's error reaches its query (the caller sees it); this listener only keeps
  // the event from ending the process.
  pool.on("connect", (client) => {
    openedAfterLoss.set(client, losses);
    client.on("error", () => undefined);
  });
  // A connection opened before the last loss may be dead without knowing it (a partition whose
  // connections never come back is heard of only through a timeout, one connection at a time):
  // it is closed at its next checkout rather than tried, so recovery costs one timeout, not one
  // per pooled connection.
  const retired = (client: PgModule.PoolClient) => (openedAfterLoss.get(client) ?? losses) < losses;
  // After a failure below SQL (a timeout, a refused or lost connection) the database counts as
  // down: one call at a time tries it (a trial), every other call fails at once instead of
  // waiting out the same timeouts, until a statement succeeds. So a request that makes several
  // storage calls (a claim, then the release of that claim) is still answered within one timeout.
  let down = false;
  let trialUnderWay = false;
  const lost = (error: unknown) => {
    if (error instanceof pg.DatabaseError) return false; // the server answered: it is up
    down = true;
    losses += 1;
    return true;
  };
  return {
    async connect() {
      if (down && trialUnderWay)
        throw new Error("the database did not answer the last call; another call is trying it");
      const trial = down;
      trialUnderWay ||= trial;
      const endTrial = () => {
        if (trial) trialUnderWay = false;
      };
      const began = Date.now();
      let client: PgModule.PoolClient;
      try {
        client = await pool.connect();
        while (retired(client)) {
          client.release(true);
          client = await pool.connect();
        }
      } catch (error) {
        lost(error);
        endTrial();
        throw error;
      }
      let broken: Error | undefined;
      let first = true;
      const query = (sql: string, parameters: readonly unknown[]) => {
        // A query behind one that never ended would wait for it: fail at once (a ROLLBACK after a timeout).
        if (broken) return Promise.reject(broken);
        // The wait for a connection counts against the first statement's time: one storage call
        // (a connection and a statement) gives up within the statement timeout.
        const queryTimeout = first
          ? Math.max(1, timeouts.statementTimeoutMs - (Date.now() - began))
          : timeouts.statementTimeoutMs;
        first = false;
        const config = { text: sql, values: [...parameters], query_timeout: queryTimeout } as PgModule.QueryConfig;
        return client.query(config).then(
          (result) => {
            down = false;
            return result;
          },
          (error: unknown) => {
            // The server's own errors (a constraint, a cancelled statement) leave the connection usable.
            if (lost(error)) broken ??= error instanceof Error ? error : new Error(String(error));
            throw error;
          },
        );
      };
      // Kysely calls query(sql, parameters) and release(); flagpost uses no cursors.
      const release = () => {
        endTrial();
        client.release(broken);
      };
      return { query, release } as unknown as Awaited<ReturnType<PostgresPool["connect"]>>;
    },
    end: () => pool.end(),
  };
}

/** pg.Client settings for the dedicated LISTEN connection: the same connect timeout, and keep-alives. */
export function listenClientSettings(url: string, timeouts: StorageTimeouts): PgModule.ClientConfig {
  return { connectionString: url, connectionTimeoutMillis: timeouts.connectTimeoutMs, keepAlive: true };
}

type Mysql = typeof Mysql2;
type MysqlConnection = Parameters<Parameters<MysqlPool["getConnection"]>[0]>[1];

/** A mysql2 pool with the listeners and timeouts above, as Kysely's MysqlDialect takes it; `size` as for PostgreSQL. */
export function mysqlPool(
  mysql: Mysql,
  url: string,
  timeouts: StorageTimeouts,
  logger: Logger,
  size?: number,
): MysqlPool {
  const pool = mysql.createPool({
    uri: url,
    connectTimeout: timeouts.connectTimeoutMs,
    enableKeepAlive: true,
    ...(size !== undefined && { connectionLimit: size }),
  });
  // Connections opened before the last loss are closed at their next checkout, as for PostgreSQL.
  const openedAfterLoss = new WeakMap<object, number>();
  let losses = 0;
  // mysql2 listens once per connection; a second error on a dead connection would be unheard.
  pool.on("connection", (connection) => {
    openedAfterLoss.set(connection, losses);
    connection.on("error", (error: unknown) =>
      logger.warn("storage: a MySQL connection failed; the pool replaces it", errorFields(error)),
    );
  });
  const checkout = (callback: Parameters<MysqlPool["getConnection"]>[0]) =>
    pool.getConnection((error, raw) => {
      if (error) return callback(error, undefined as unknown as MysqlConnection);
      if ((openedAfterLoss.get(raw) ?? losses) < losses) {
        raw.destroy();
        return checkout(callback);
      }
      lend(raw, callback);
    });
  const lend = (raw: Mysql2.PoolConnection, callback: Parameters<MysqlPool["getConnection"]>[0]) => {
    let broken = false;
    const wrapped = {
      query(sql: string, parameters: unknown[], done?: (error: unknown, result: unknown) => void) {
        const options = { sql, timeout: timeouts.statementTimeoutMs };
        if (done === undefined) return raw.query(options, parameters);
        raw.query(options, parameters, (queryError, result) => {
          const coded = (queryError ?? {}) as { fatal?: unknown; code?: unknown };
          if (coded.fatal === true || coded.code === "PROTOCOL_SEQUENCE_TIMEOUT") {
            broken = true;
            losses += 1;
          }
          done(queryError, result);
        });
      },
      // A timed-out connection may still answer the old query later: never hand it out again.
      release: () => (broken ? raw.destroy() : raw.release()),
    };
    callback(null, wrapped as unknown as MysqlConnection);
  };
  return {
    getConnection: checkout,
    end: (callback) => pool.end(callback),
  };
}
