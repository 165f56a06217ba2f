export { kyselyStorage, type KyselyStorageOptions } from "./kysely-storage.js";
export type { PgListenConnect, PgListenConnection } from "./postgres-flag-watch.js";
export { postgresRateLimitStore } from "./postgres-rate-limit.js";
