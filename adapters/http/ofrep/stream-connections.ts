import { errorFields } from "../../../src/ports/logger.js";
import type { Flagpost } from "../../../src/flagpost.js";

/**
 * The OFREP event streams open in this process, by key: at most `max` per key, and every
 * `keyCheckMs` one storage read per key with open streams (not per stream) to end the streams
 * of a key revoked since they opened, in this process or another. While storage cannot answer,
 * streams stay open (as evaluation keeps answering from memory) and the failure is logged.
 */
export class StreamConnections {
  readonly #fp: Flagpost;
  readonly #max: number;
  readonly #keyCheckMs: number;
  /** Each open stream's `end`, by key id. */
  readonly #byKey = new Map<string, Set<() => void>>();
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(fp: Flagpost, max: number, keyCheckMs: number) {
    this.#fp = fp;
    this.#max = max;
    this.#keyCheckMs = keyCheckMs;
  }

  /** Streams open now for this key. */
  count(keyId: string): number {
    return this.#byKey.get(keyId)?.size ?? 0;
  }

  /**
   * Takes a place for a stream of `keyId`, whose `end` is called should the key be revoked;
   * answers the function that gives the place back, or undefined when the key holds `max` already.
   */
  admit(keyId: string, end: () => void): (() => void) | undefined {
    let ends = this.#byKey.get(keyId);
    if ((ends?.size ?? 0) >= this.#max) return undefined;
    if (!ends) this.#byKey.set(keyId, (ends = new Set()));
    ends.add(end);
    this.#timer ??= setInterval(() => void this.#checkKeys(), this.#keyCheckMs).unref();
    return () => {
      ends.delete(end);
      if (ends.size === 0 && this.#byKey.get(keyId) === ends) this.#byKey.delete(keyId);
      if (this.#byKey.size === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  async #checkKeys(): Promise<void> {
    if (this.#checking) return; // a slow storage read does not pile up checks
    this.#checking = true;
    try {
      for (const [keyId, ends] of [...this.#byKey]) {
        try {
          if (await this.#fp.keys.active(keyId)) continue;
        } catch (error) {
          this.#fp.logger.warn("could not check the key of open OFREP streams", { keyId, ...errorFields(error) });
          continue;
        }
        for (const end of [...ends]) end();
      }
    } finally {
      this.#checking = false;
    }
  }
}
