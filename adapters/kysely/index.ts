import { importWithPeers } from "../../src/optional-peer.js";
import type { kyselyStorage as KyselyStorage } from "./kysely-storage.js";
import type { postgresRateLimitStore as PostgresRateLimitStore } from "./postgres-rate-limit.js";
import { withStatementCache } from "./sqlite-statements.js";

export type { KyselyStorageOptions } from "./kysely-storage.js";
export type { PgListenConnect, PgListenConnection } from "./postgres-flag-watch.js";

// kysely is an optional peer. A static import of it would fail at link time with Node's raw
// "Cannot find package" before any of our code runs; importing the adapter here lets us name it.
const adapter = await importWithPeers("flagpost/kysely", ["kysely"], async () => ({
  ...(await import("./kysely-storage.js")),
  ...(await import("./postgres-rate-limit.js")),
}));

export const kyselyStorage: typeof KyselyStorage = adapter.kyselyStorage;
export const postgresRateLimitStore: typeof PostgresRateLimitStore = adapter.postgresRateLimitStore;
// Needs nothing from kysely at run time (its types only), so it is exported as it is.
export { withStatementCache };
