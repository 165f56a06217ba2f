export { kyselyStorage, type KyselyStorageOptions } from "./kysely-storage.js";
export type { PgListenConnect, PgListenConnection } from "./postgres-flag-watch.js";
