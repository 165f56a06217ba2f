import { parentPort, workerData } from "node:worker_threads";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { FlagpostError } from "../../src/errors.js";
import { heavyReaderOver, type HeavyReader } from "./heavy-reads.js";
import type { HeavyReadReply, HeavyReadRequest, HeavyReadWorkerData } from "./heavy-read-thread.js";
import { withStatementCache } from "./sqlite-statements.js";
import type { FlagpostTables } from "./tables.js";

/**
 * The thread SQLite's heavy reads run in (adapters/kysely/heavy-read-thread.ts starts it): its own
 * read-only connection to the file, and the storage's own repositories over it. better-sqlite3 is
 * synchronous, so a query that takes seconds takes them here, not on the server's event loop; in
 * WAL mode it reads a consistent snapshot while the main connection keeps writing.
 */
const { file, busyTimeoutMs } = workerData as HeavyReadWorkerData;
let reader: HeavyReader | undefined;

/** Opened on the first request, so a failure to open is that request's error, not a dead thread. */
function open(): HeavyReader {
  if (reader) return reader;
  let database: SQLite.Database;
  try {
    database = new SQLite(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  } catch (error) {
    // As the main connection's open failure reads (cli/open-database.ts): the storage is not there.
    throw new FlagpostError(
      "unavailable",
      `Cannot open the SQLite database at ${file} for heavy reads: ${(error as Error).message}`,
    );
  }
  const db = new Kysely<FlagpostTables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  reader = heavyReaderOver(db, "sqlite", true);
  return reader;
}

async function answer(request: HeavyReadRequest): Promise<HeavyReadReply> {
  try {
    const heavy = open();
    const value =
      request.op === "experimentTotals"
        ? await heavy.experimentTotals(request.query)
        : await heavy.queryEvents(request.filter, request.after, request.limit);
    return { id: request.id, ok: true, value };
  } catch (error) {
    // FlagpostError does not survive structured cloning as itself: send what rebuilds it.
    if (error instanceof FlagpostError)
      return { id: request.id, ok: false, code: error.code, message: error.message, details: error.details };
    return { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on("message", (request: HeavyReadRequest) => {
  void answer(request).then((reply) => parentPort!.postMessage(reply));
});
