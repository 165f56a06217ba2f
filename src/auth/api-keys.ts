import { z } from "zod";
import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { isStorableText } from "../input-policy.js";
import type { ApiKeyRecord, EpochMs, Storage } from "../ports/storage/index.js";
import { parseInput } from "../validation.js";
import { digestBytes, digestsEqual, generatePlainKey, hashKey } from "./key-hash.js";
import { SCOPES, type Scope } from "./scopes.js";

export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: EpochMs;
  revokedAt?: EpochMs;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The plain key. Shown once: only its SHA-256 hash is stored. */
  key: string;
}

const createKeySchema = z.strictObject({
  name: z.string().max(200).default(""),
  scopes: z.array(z.enum(SCOPES)).min(1).default(["full_access"]),
  /** Use this exact plain key (e.g. FLAGPOST_API_KEY) instead of generating one. */
  key: z.string().min(16).max(512).optional(),
});
export type CreateKeyInput = z.input<typeof createKeySchema>;

/** Verified keys are cached this long, so a hot route does not read storage on every request. */
const CACHE_MS = 1_000;
const CACHE_MAX = 10_000;
/**
 * Unknown keys are remembered this long, so repeating one does not read storage each time. A key
 * created in this process works at once; one created by another process within this bound.
 */
const MISS_CACHE_MS = 1_000;
const MISS_CACHE_MAX = 10_000;
/** verifyOrRemember: how long a verified key is still accepted from memory while storage cannot answer. */
const REMEMBER_KEYS_MS = 10 * 60_000;
/** verifyOrRemember: how long it waits for storage before it answers from memory. */
const REMEMBER_WAIT_MS = 500;

interface CacheEntry {
  record: ApiKeyRecord;
  digest: Buffer;
  info: Readonly<ApiKeyInfo>;
  /** When the read that made it began. */
  at: number;
}

function info(record: ApiKeyRecord): ApiKeyInfo {
  const { hash: _hash, ...rest } = record;
  return rest;
}

/**
 * API keys: created with scopes, stored as SHA-256 hashes, verified in constant time, revoked.
 * A revocation made through this process takes effect at once; one made by another process
 * within CACHE_MS (1 s).
 */
export class ApiKeys {
  readonly #storage: Storage;
  readonly #clock: Clock;
  /** By hex digest: the record, its digest bytes (for the constant-time check) and the answer. */
  readonly #cache = new Map<string, CacheEntry>();
  /** By hex digest: when storage last said no such key exists. */
  readonly #misses = new Map<string, number>();
  /** By hex digest: the storage read under way, which every verify() of that key waits for. */
  readonly #reading = new Map<string, Promise<CacheEntry | undefined>>();
  /** Moved by create() and revoke(): a read begun before either is not cached. */
  #generation = 0;
  /** Set when a key read failed with `unavailable` or was late; cleared by the next read that succeeds. */
  #storageDown = false;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  async create(input: CreateKeyInput = {}): Promise<CreatedApiKey> {
    const parsed = parseInput(createKeySchema, input);
    const plain = parsed.key ?? generatePlainKey();
    const record: ApiKeyRecord = {
      id: uuidv7(this.#clock.now()),
      name: parsed.name,
      hash: hashKey(plain),
      scopes: [...new Set(parsed.scopes)],
      createdAt: this.#clock.now(),
    };
    await this.#storage.apiKeys.insert(record);
    this.#generation += 1;
    this.#reading.clear();
    this.#misses.delete(record.hash);
    return { ...info(record), key: plain };
  }

  /**
   * Makes sure this exact plain key exists with these scopes; creates it when missing. A revoked
   * key stays revoked (ensure never brings a key back). Returns whether it was created.
   */
  async ensure(
    plain: string,
    scopes: Scope[] = ["full_access"],
    name = "ensured",
  ): Promise<{ created: boolean; key: ApiKeyInfo }> {
    const existing = await this.#storage.apiKeys.findByHash(hashKey(plain));
    if (existing) return { created: false, key: info(existing) };
    try {
      const created = await this.create({ key: plain, scopes, name });
      const { key: _plain, ...rest } = created;
      return { created: true, key: rest };
    } catch (error) {
      // Another process ensured the same key between our read and insert.
      const raced = await this.#storage.apiKeys.findByHash(hashKey(plain));
      if (raced) return { created: false, key: info(raced) };
      throw error;
    }
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.#storage.apiKeys.list()).map(info);
  }

  /**
   * The key with this id when it exists and is not revoked (read from storage each time: the
   * OFREP event streams ask on connecting and every few seconds while open, per key, not per
   * request).
   */
  async active(id: string): Promise<ApiKeyInfo | undefined> {
    const record = isStorableText(id) ? await this.#storage.apiKeys.findById(id) : undefined;
    return record && record.revokedAt === undefined ? info(record) : undefined;
  }

  async revoke(id: string): Promise<void> {
    const found = isStorableText(id) && (await this.#storage.apiKeys.revoke(id, this.#clock.now()));
    if (!found) throw new FlagpostError("not_found", `API key "${id}" was not found`);
    this.#generation += 1;
    this.#reading.clear();
    this.#cache.clear();
  }

  /**
   * verify()'s answer when this process can give it without storage and without a promise: the
   * key's info for a fresh, unrevoked cache entry. Otherwise `"known"` (seen lately, valid or
   * revoked: verify() reads storage at most to refresh) or `"unknown"` (not seen lately: it may be
   * made up). The HTTP layer charges requests with an unknown key to the client's address before
   * verify() may read storage. One hash per request on the hot path.
   */
  cached(plain: string): ApiKeyInfo | "known" | "unknown" {
    if (plain.length === 0 || plain.length > 512) return "unknown";
    const hash = hashKey(plain);
    const entry = this.#cache.get(hash);
    if (!entry) return "unknown";
    if (this.#clock.now() - entry.at >= CACHE_MS || entry.record.revokedAt !== undefined) return "known";
    // As in verify(): the lookup went by hash; compare again in constant time.
    return digestsEqual(entry.digest, digestBytes(hash)) ? entry.info : "known";
  }

  /**
   * The key's id and scopes when `plain` is a known, unrevoked key; otherwise undefined. Within
   * the cache period the same (frozen) object is answered for the same key. Concurrent calls that
   * find no fresh entry for one key share one storage read (single-flight), so a cache expiry
   * under load costs one read per key, not one per request in flight.
   */
  async verify(plain: string): Promise<ApiKeyInfo | undefined> {
    if (plain.length === 0 || plain.length > 512) return undefined;
    const hash = hashKey(plain);
    const now = this.#clock.now();
    let entry = this.#cache.get(hash);
    if (!entry || now - entry.at >= CACHE_MS) {
      const missed = this.#misses.get(hash);
      if (missed !== undefined && now - missed < MISS_CACHE_MS) return undefined;
      let reading = this.#reading.get(hash);
      if (!reading) {
        const started: Promise<CacheEntry | undefined> = this.#read(hash, now).finally(() => {
          if (this.#reading.get(hash) === started) this.#reading.delete(hash);
        });
        this.#reading.set(hash, (reading = started));
      }
      entry = await reading;
      if (!entry) return undefined;
    }
    // The lookup went by hash; compare again in constant time so no code path depends on a
    // partial match of attacker-controlled input.
    if (!digestsEqual(entry.digest, digestBytes(hash)) || entry.record.revokedAt !== undefined) return undefined;
    return entry.info;
  }

  /**
   * verify() for requests answered from memory (flag evaluation from the snapshot): when storage
   * cannot answer (the key read fails with `unavailable`, or takes longer than 500 ms), a key this
   * process verified within the last REMEMBER_KEYS_MS (10 minutes), unrevoked then, is answered
   * from memory, and while storage stays down it is answered at once (one read per key keeps
   * trying in the background). A key never verified here, or revoked, still needs storage.
   */
  async verifyOrRemember(plain: string): Promise<ApiKeyInfo | undefined> {
    const remembered = this.#remembered(plain);
    if (remembered === undefined) return this.verify(plain);
    const verifying = this.verify(plain);
    if (this.#storageDown) {
      verifying.catch(() => undefined); // failures are what #storageDown records
      return remembered;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), REMEMBER_WAIT_MS)));
    try {
      const answer = await Promise.race([verifying, late]);
      if (answer !== "late") return answer;
      this.#storageDown = true;
      verifying.catch(() => undefined);
      return remembered;
    } catch (error) {
      if (error instanceof FlagpostError && error.code === "unavailable") return remembered;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The key's info when this process verified it within REMEMBER_KEYS_MS and it was not revoked then. */
  #remembered(plain: string): ApiKeyInfo | undefined {
    if (plain.length === 0 || plain.length > 512) return undefined;
    const hash = hashKey(plain);
    const entry = this.#cache.get(hash);
    if (!entry || entry.record.revokedAt !== undefined || this.#clock.now() - entry.at >= REMEMBER_KEYS_MS)
      return undefined;
    return digestsEqual(entry.digest, digestBytes(hash)) ? entry.info : undefined;
  }

  /**
   * One storage read for `hash`, started at `now`: the entry it makes is dated by when the read
   * began, so it is never used past 1 s after a revocation committed before it. A read that a
   * create() or revoke() of this process overtook answers the calls that were already waiting,
   * is not kept, and is not joined by later calls.
   */
  async #read(hash: string, now: number): Promise<CacheEntry | undefined> {
    const generation = this.#generation;
    let record: ApiKeyRecord | undefined;
    try {
      record = await this.#storage.apiKeys.findByHash(hash);
    } catch (error) {
      if (error instanceof FlagpostError && error.code === "unavailable") this.#storageDown = true;
      throw error;
    }
    this.#storageDown = false;
    const keep = generation === this.#generation;
    if (!record) {
      if (keep) {
        if (this.#misses.size >= MISS_CACHE_MAX) this.#misses.clear();
        this.#misses.set(hash, now);
        this.#cache.delete(hash);
      }
      return undefined;
    }
    const entry: CacheEntry = {
      record,
      digest: digestBytes(record.hash),
      info: Object.freeze({ ...info(record), scopes: Object.freeze([...record.scopes]) as Scope[] }),
      at: now,
    };
    if (keep) {
      if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
      this.#cache.set(hash, entry);
    }
    return entry;
  }
}
