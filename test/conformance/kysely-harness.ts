import { kyselyStorage } from "../../adapters/kysely/index.js";
import { type Backend, createTestDatabase, type TestDatabase } from "../support/databases.js";
import type { StorageHarness } from "../../adapters/testing/index.js";

/**
 * The conformance harness for kyselyStorage on one backend. The database is created and migrated
 * once per test file; each test then gets the same tables emptied, which keeps a whole run to a
 * few seconds even on a server.
 */
export function kyselyHarness(backend: Backend): StorageHarness {
  let database: TestDatabase | undefined;
  const current = () => {
    if (!database) throw new Error(`the ${backend} test database is not set up`);
    return database;
  };
  return {
    name: backend,
    async setup() {
      database = await createTestDatabase(backend);
      await kyselyStorage(database.db).migrate();
    },
    async teardown() {
      await database?.drop();
      database = undefined;
    },
    async create() {
      await current().clear();
      return kyselyStorage(current().db);
    },
    destroy: (storage) => storage.close(),
    async reopen(storage) {
      await storage.close();
      // A new instance with its own connections: what it reads was stored by the engine, not
      // held by the old instance.
      return kyselyStorage(current().open(), { destroyOnClose: true });
    },
    async openShared(count) {
      const fresh = await createTestDatabase(backend);
      // In one process, a SQLite connection waiting on another's lock blocks the thread that
      // the lock holder needs: keep the wait short and let migrate() retry.
      const storages = Array.from({ length: count }, () =>
        kyselyStorage(fresh.open({ busyTimeoutMs: 50 }), { destroyOnClose: true }),
      );
      return {
        storages,
        async dispose() {
          await Promise.allSettled(storages.map((s) => s.close()));
          await fresh.drop();
        },
      };
    },
  };
}
