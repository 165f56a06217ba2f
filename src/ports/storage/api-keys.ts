import type { Scope } from "../../auth/scopes.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// API keys

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** Lower-case hex SHA-256 of the plain key. The plain key is never stored. */
  hash: string;
  scopes: Scope[];
  createdAt: EpochMs;
  revokedAt?: EpochMs;
}

export interface ApiKeyRepository {
  /** Stores a key. MUST throw `FlagpostError("conflict")` when the id or the hash exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  /** The key with this hash, revoked or not; undefined when none. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this id, revoked or not; undefined when none. */
  findById(id: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt once; true when the key exists (revoking twice keeps the first time). */
  revoke(id: string, at: EpochMs): Promise<boolean>;
}
