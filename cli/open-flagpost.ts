import { kyselyStorage } from "../adapters/kysely/index.js";
import { createFlagpost, type Flagpost, type FlagpostOptions, type Logger } from "../src/index.js";
import { DEFAULT_DATABASE, openDatabase } from "./open-database.js";

/** FLAGPOST_DB as it may be shown: a URL's password is masked. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.protocol === "file:" ? url : parsed.toString();
  } catch {
    return url; // a file path or :memory:
  }
}

/**
 * Builds the storage from FLAGPOST_DB (the one place that turns a URL into a connection).
 * `extra` adds what only some commands need (serve: the mail transport and worker settings).
 */
export async function openFlagpost(env: NodeJS.ProcessEnv, logger: Logger, extra: Omit<Partial<FlagpostOptions>, "storage" | "logger"> = {}): Promise<Flagpost> {
  const db = await openDatabase(env.FLAGPOST_DB ?? DEFAULT_DATABASE);
  const fp = createFlagpost({ ...extra, storage: kyselyStorage(db, { destroyOnClose: true }), logger });
  try {
    await fp.ready();
  } catch (error) {
    await fp.close().catch(() => undefined);
    throw error;
  }
  return fp;
}
