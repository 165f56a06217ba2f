import { errorFields } from "../../../src/ports/logger.js";
import type { Flagpost } from "../../../src/flagpost.js";

/** The OFREP event stream's path (docs/ofrep.md "Event streams"). */
export const OFREP_STREAM_PATH = "/ofrep/v1/stream";

export interface OfrepStreamOptions {
  /** Longest a stream link's token lives, in seconds (2–86,400); a bulk answer's link has at least half of it left. Default 3,600. */
  tokenTtlSeconds?: number;
  /** Streams one key may hold open in this process; one more is answered 429. Default 10,000. */
  maxConnectionsPerKey?: number;
  /** How often the keys of open streams are checked, in ms: a revoked key's streams end within this. Default 5,000. */
  keyCheckMs?: number;
}

export const STREAM_DEFAULTS = { tokenTtlSeconds: 3_600, maxConnectionsPerKey: 10_000, keyCheckMs: 5_000 } as const;

/** Characters of the flags version a link carries: enough to tell versions apart, short in a URL. */
const SINCE_LENGTH = 16;
/** Tokens kept for the current window (one per key asking), so a bulk request costs no HMAC once its key has one. */
const KEPT_TOKENS = 10_000;

export interface StreamLink {
  type: "sse";
  endpoint: { requestUri: string };
}

/**
 * The `eventStreams` entry of a bulk answer (ADR 0008): `{type: "sse", endpoint: {requestUri}}`,
 * the provider adding the origin of its base URL. Its token expires at the end of the window after
 * the current one (windows of half the lifetime), so the link a bulk answer gives is the same for
 * a whole window, which keeps the answer's bytes, and so its strong ETag (which covers the link),
 * stable; a client asking in a later window gets a 200 with a fresh link instead of a 304 that
 * keeps an old one. When the server's secret cannot be read (storage down before this process
 * ever read it), there is no link: the answer leaves `eventStreams` out and providers poll.
 */
export class StreamLinks {
  readonly #fp: Flagpost;
  readonly #windowSeconds: number;
  /** Tokens by key id, for the expiry `#expiresAt`. */
  #tokens = new Map<string, string>();
  #expiresAt = 0;
  #failing = false;

  constructor(fp: Flagpost, tokenTtlSeconds: number) {
    // Refused at creation, as a programming error: a lifetime under 2 s gives no window at all,
    // and one over a day keeps a leaked link usable longer than any client needs it.
    if (!Number.isInteger(tokenTtlSeconds) || tokenTtlSeconds < 2 || tokenTtlSeconds > 86_400)
      throw new RangeError(
        `ofrepStreams.tokenTtlSeconds must be a whole number from 2 to 86400, not ${tokenTtlSeconds}`,
      );
    this.#fp = fp;
    this.#windowSeconds = Math.max(1, Math.floor(tokenTtlSeconds / 2));
  }

  /** The entry for this key, linking with the flags version the answer carries; undefined without the secret. */
  async entry(
    keyId: string,
    version: string,
    href: (path: string, query: Record<string, string>) => string,
  ): Promise<StreamLink | undefined> {
    const expiresAt = (Math.floor(this.#fp.clock.now() / 1000 / this.#windowSeconds) + 2) * this.#windowSeconds;
    if (expiresAt !== this.#expiresAt || this.#tokens.size >= KEPT_TOKENS) {
      this.#tokens = new Map();
      this.#expiresAt = expiresAt;
    }
    let token = this.#tokens.get(keyId);
    if (token === undefined) {
      try {
        token = await this.#fp.streamTokens.issue(keyId, expiresAt);
      } catch (error) {
        if (!this.#failing) this.#fp.logger.warn("OFREP answers go without an event-stream link", errorFields(error));
        this.#failing = true;
        return undefined;
      }
      this.#failing = false;
      if (expiresAt === this.#expiresAt) this.#tokens.set(keyId, token);
    }
    const requestUri = href(OFREP_STREAM_PATH, { token, since: version.slice(0, SINCE_LENGTH) });
    return { type: "sse", endpoint: { requestUri } };
  }

  /** Whether the stream's `since` is the current flags version (nothing missed). */
  static current(since: string | null, version: string): boolean {
    return since !== null && since.length === SINCE_LENGTH && version.startsWith(since);
  }
}
