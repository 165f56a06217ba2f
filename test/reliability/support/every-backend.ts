import { kyselyStorage } from "../../../adapters/kysely/index.js";
import type { HttpOptions } from "../../../adapters/http/index.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { createTestDatabase, enabledBackends, type TestDatabase } from "../../support/databases.js";
import { startApp, type TestApp } from "../../support/servers.js";

/** One flagpost server per storage backend, each on its own fresh database. */
export interface BackendApp {
  backend: string;
  app: TestApp;
  storage: Storage;
}

/** Rate limits off: these suites send many requests on purpose. */
const UNLIMITED: HttpOptions = { rateLimit: false };

/**
 * Memory, then SQLite, PostgreSQL and MySQL/MariaDB (each when its URL is set; see
 * test/support/databases.ts), each behind a real node:http server on 127.0.0.1.
 */
export async function startEveryBackend(
  http: HttpOptions = UNLIMITED,
): Promise<{ apps: BackendApp[]; close(): Promise<void> }> {
  const databases: TestDatabase[] = [];
  const apps: BackendApp[] = [];
  const close = async () => {
    await Promise.allSettled(apps.map((a) => a.app.close()));
    await Promise.allSettled(databases.map((d) => d.drop()));
  };
  try {
    const memory = await startApp({ http });
    apps.push({ backend: "memory", app: memory, storage: memory.fp.storage });
    for (const backend of enabledBackends()) {
      const database = await createTestDatabase(backend);
      databases.push(database);
      const storage = kyselyStorage(database.db);
      const app = await startApp({ storage, http });
      apps.push({ backend, app, storage });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { apps, close };
}
