import { createHmac, randomBytes } from "node:crypto";
import type { Storage } from "./ports/storage/index.js";

/** Where a generated secret is kept when none is configured. */
const SETTING = "server_secret";

/**
 * The server's secret (`FLAGPOST_SECRET_KEY`, or `secretKey` for createFlagpost): the key VERP
 * tags are made with. Unset, a random secret is generated once and kept in storage, so every
 * process sharing the storage, and every restart, makes the same tags. Each use derives its own
 * key from it (`keyFor(purpose)`), so one use's outputs say nothing about another's.
 */
export class ServerSecret {
  readonly #storage: Storage;
  readonly #configured: string | undefined;
  #secret: Promise<Buffer> | undefined;

  constructor(storage: Storage, configured?: string) {
    this.#storage = storage;
    this.#configured = configured === undefined || configured === "" ? undefined : configured;
  }

  /** The key for one purpose (`"verp"`…): HMAC-SHA256 of the purpose under the secret. */
  async keyFor(purpose: string): Promise<Buffer> {
    return createHmac("sha256", await this.#read())
      .update(`flagpost:${purpose}`)
      .digest();
  }

  #read(): Promise<Buffer> {
    if (this.#configured !== undefined) return Promise.resolve(Buffer.from(this.#configured, "utf8"));
    this.#secret ??= this.#storage.settings
      .getOrCreateSetting(SETTING, randomBytes(32).toString("base64url"))
      .then((value) => Buffer.from(value, "utf8"));
    // A storage failure is not kept: the next use asks again.
    this.#secret.catch(() => (this.#secret = undefined));
    return this.#secret;
  }
}
