import { resolve } from "node:path";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../src/flagpost.js";
import { FlagpostError } from "../src/errors.js";
import type { Logger } from "../src/ports/logger.js";
import { closeOnFailure } from "./close-on-failure.js";
import { maskUrl } from "./mail-transport.js";
import {
  databaseSettingsFrom,
  DEFAULT_DATABASE,
  listenConnectFor,
  openDatabase,
  openHeavyReads,
  parseDatabaseUrl,
} from "./open-database.js";

/** FLAGPOST_DB as it may be shown: a URL's password is masked; a file path or :memory: as it is. */
export function describeDatabase(url: string): string {
  return URL.canParse(url) && !url.startsWith("file:") ? maskUrl(url) : url;
}

/**
 * Builds the storage from FLAGPOST_DB (the one place that turns a URL into a connection).
 * `extra` adds what only some commands need (serve: the mail transport and worker settings).
 * `listen`: on PostgreSQL, LISTEN for flag changes on a connection of its own (serve does, so
 * another process's flag write reaches this one's snapshot in milliseconds instead of a poll).
 * `wait` (serve): while the database cannot be reached for a reason that waiting clears, try again
 * (cli/wait-for-database.ts) instead of failing; the other commands fail at once.
 */
export async function openFlagpost(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  extra: Omit<Partial<FlagpostOptions>, "storage" | "logger"> = {},
  { listen = false, wait = false }: { listen?: boolean; wait?: boolean } = {},
): Promise<Flagpost> {
  const url = env.FLAGPOST_DB ?? DEFAULT_DATABASE;
  const settings = databaseSettingsFrom(env, logger);
  const db = await openDatabase(url, settings);
  // Imported here, after openDatabase named a missing kysely or driver, so `flagpost --help` needs neither.
  const { reachDatabase } = await import("./wait-for-database.js");
  await closeOnFailure(
    () => reachDatabase(db, describeDatabase(url), { wait, logger }),
    () => db.destroy(),
  );
  const connect = listen ? await listenConnectFor(url, settings) : undefined;
  // Experiment results and long event queries on connections of their own (docs/storage.md, "Heavy reads").
  const heavyReads = await openHeavyReads(url, settings);
  const { kyselyStorage } = await import("../adapters/kysely/index.js");
  const storage = kyselyStorage(db, {
    destroyOnClose: true,
    ...(connect && { listen: connect }),
    ...(heavyReads && { heavyReads }),
  });
  const fp = createFlagpost({ ...extra, storage, logger });
  await closeOnFailure(
    () => fp.ready(),
    () => fp.close(),
  );
  return fp;
}

/** A SQLite file-level error (read-only, not a database…) with the file it is about, when it does not say. */
export async function withDatabaseFile(error: unknown, url: string = DEFAULT_DATABASE): Promise<unknown> {
  if (!(error instanceof FlagpostError) || error.message.includes("file: ")) return error;
  // Without kysely installed no SQLite error can have happened; the error says what is missing.
  const driverErrors = await import("../adapters/kysely/driver-errors.js").catch(() => undefined);
  if (!driverErrors?.isSqliteFileError(error)) return error;
  let target: ReturnType<typeof parseDatabaseUrl>;
  try {
    target = parseDatabaseUrl(url);
  } catch {
    return error;
  }
  if (target.engine !== "sqlite" || target.path === ":memory:") return error;
  return new FlagpostError(error.code, `${error.message}; file: ${resolve(target.path)}`, { cause: error.cause });
}
