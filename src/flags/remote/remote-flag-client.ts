import { type Clock, systemClock } from "../../ports/clock.js";
import { FlagpostError } from "../../errors.js";
import { asLogger, defaultLogger, errorFields, type Logger } from "../../ports/logger.js";
import type { SnapshotFlag } from "../evaluation/compile.js";
import { type ExposureOptions, ExposureRecorder } from "../client/exposures.js";
import { backoffDelay, exponential } from "../../jobs/backoff.js";
import { FlagClient, type FlagFeed } from "../client/flag-client.js";
import { describeFailure, HttpStatusError, isKeyRefused, statusError } from "./remote-http.js";
import { RemoteStream } from "./remote-stream.js";
import { parseSnapshot } from "../client/snapshot.js";

/**
 * A FlagClient for an app that does not share flagpost's database: it loads every flag from
 * `GET /v1/flags/_snapshot` and evaluates locally, exactly as the in-process client does. It
 * follows changes over `GET /v1/flags/_stream` (Server-Sent Events) when the server offers it,
 * and polls with If-None-Match (a 304 costs the server no storage read) while the stream is
 * down; it keeps serving the last good snapshot while the server is unreachable, backs off with
 * jitter on errors, and can start from a JSON file when the server is down at start-up. Only
 * `fetch` and timers are used: no Node-only module is loaded unless `bootstrap` names a file.
 */

export interface RemoteFlagClientOptions {
  /** Where flagpost serves /v1, e.g. "https://flags.internal" or "http://app:3000/flagpost". */
  url: string;
  /** An API key with the `flags:read` scope (or `full_access`). */
  apiKey: string;
  /** Time between polls while all is well and the stream is down (or off). Default 10 s. */
  pollIntervalMs?: number;
  /**
   * Follow changes over the server's stream, polling only while it is down. Default true; a
   * server without the stream route is polled.
   */
  stream?: boolean;
  /** A stream connection with no byte (not even a keep-alive) for this long is opened again. Default 45 s. */
  streamIdleTimeoutMs?: number;
  /** Longest wait between attempts while requests fail. Default 60 s. */
  maxBackoffMs?: number;
  /** Per-request timeout. Default 10 s. */
  timeoutMs?: number;
  /**
   * `ready()` rejects (with code "unavailable" and the last error) if no snapshot was loaded within
   * this time; the client keeps trying and becomes ready later. Until then this timer keeps the
   * process alive, so an awaited `ready()` always settles. Default 10 s.
   */
  readyTimeoutMs?: number;
  /**
   * Flags to serve before the first successful request: a path to a JSON file (Node only), or
   * the parsed JSON. Either a snapshot body as the route returns it (`{"data": {"flags": [...]}}`,
   * so `curl … /v1/flags/_snapshot > flags.json` makes one), `{"flags": [...]}`, or a list of flags.
   */
  bootstrap?: string | URL | unknown;
  /** Opt-in `$exposure` events, as createFlagpost's option (a sink is required when enabled). */
  exposures?: ExposureOptions;
  /** Defaults to the core's: warnings and errors as JSON lines on stderr. */
  logger?: Logger;
  clock?: Clock;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export const SNAPSHOT_ROUTE = "v1/flags/_snapshot";

async function loadBootstrap(source: unknown): Promise<SnapshotFlag[]> {
  if (typeof source === "string" || source instanceof URL) {
    const { readFile } = await import("node:fs/promises");
    return parseSnapshot(JSON.parse(await readFile(source, "utf8")));
  }
  return parseSnapshot(source);
}

export function createRemoteFlagClient(options: RemoteFlagClientOptions): FlagClient {
  const logger = options.logger ? asLogger(options.logger) : defaultLogger;
  const clock = options.clock ?? systemClock;
  const sink = options.exposures?.enabled ? options.exposures.sink : undefined;
  if (options.exposures?.enabled && !sink)
    throw new FlagpostError("validation_error", '"exposures.sink" is required when exposures are enabled');
  const exposures = sink && new ExposureRecorder(sink, { ...options.exposures, clock, logger });
  const { client, feed } = FlagClient.create({ exposures, logger });
  new RemotePoller(options, feed, logger).start();
  return client;
}

class RemotePoller {
  readonly #endpoint: URL;
  readonly #options: RemoteFlagClientOptions;
  readonly #feed: FlagFeed;
  readonly #logger: Logger;
  readonly #fetch: typeof globalThis.fetch;
  readonly #pollMs: number;
  readonly #abort = new AbortController();
  readonly #stream: RemoteStream | undefined;
  /** The stream is up: polls pause until it drops. */
  #streaming = false;
  #etag: string | undefined;
  #failures = 0;
  #loaded = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Why the last request failed, for the start-up timeout's message. */
  #lastError: unknown;

  constructor(options: RemoteFlagClientOptions, feed: FlagFeed, logger: Logger) {
    const base = new URL(options.url.endsWith("/") ? options.url : `${options.url}/`);
    this.#endpoint = new URL(SNAPSHOT_ROUTE, base);
    this.#options = options;
    this.#feed = feed;
    this.#logger = logger;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#pollMs = options.pollIntervalMs ?? 10_000;
    if (options.stream !== false) {
      this.#stream = new RemoteStream(
        base,
        {
          apiKey: options.apiKey,
          fetch: this.#fetch,
          idleTimeoutMs: options.streamIdleTimeoutMs ?? 45_000,
          maxBackoffMs: options.maxBackoffMs ?? 60_000,
        },
        {
          snapshot: (body) => {
            const flags = parseSnapshot(body);
            const version = (body as { data?: { version?: unknown } } | null)?.data?.version;
            this.#apply(flags, typeof version === "string" ? `"${version}"` : undefined);
          },
          upsert: (flag) => {
            this.#etag = undefined; // the next poll, if any, must not be answered 304 from an older version
            this.#feed.upsert(flag);
          },
          remove: (key) => {
            this.#etag = undefined;
            this.#feed.remove(key);
          },
          up: () => {
            this.#streaming = true;
            clearTimeout(this.#timer);
            this.#logger.info("following flag changes over the server's stream");
          },
          down: (error) => {
            this.#streaming = false;
            // Info, not a warning: proxies end long connections routinely, and the poll that takes
            // over at once warns (once) if the server itself is gone, so an outage reads as one line.
            this.#logger.info("the flag stream dropped; polling until it is back", errorFields(error));
            void this.#poll();
          },
          refused: (error) => this.#refused(error),
          unsupported: (status) => this.#logger.info("the server offers no flag stream; polling", { status }),
        },
      );
    }
    feed.onClose(async () => this.close());
  }

  start(): void {
    const timeoutMs = this.#options.readyTimeoutMs ?? 10_000;
    // Not unref'd: with the server down every other timer is, and a process awaiting ready()
    // would otherwise end with nothing left to run (exit code 13, no message).
    this.#readyTimer = setTimeout(() => {
      if (this.#loaded) return;
      const last = this.#lastError === undefined ? "" : ` (last error: ${describeFailure(this.#lastError)})`;
      this.#feed.rejectWaiting(
        new FlagpostError(
          "unavailable",
          `No flag snapshot from ${this.#endpoint.href} within ${timeoutMs} ms${last}; still trying in the background`,
        ),
      );
    }, timeoutMs);
    void this.#begin();
  }

  close(): void {
    this.#closed = true;
    this.#abort.abort();
    this.#stream?.close();
    clearTimeout(this.#timer);
    clearTimeout(this.#readyTimer);
  }

  async #begin(): Promise<void> {
    if (this.#options.bootstrap !== undefined) {
      try {
        const flags = await loadBootstrap(this.#options.bootstrap);
        // A fetch may have won the race; the server's snapshot is the newer one then.
        if (!this.#loaded && !this.#closed) this.#feed.replace(flags);
        this.#loaded = true;
        clearTimeout(this.#readyTimer);
      } catch (error) {
        const source =
          typeof this.#options.bootstrap === "string" || this.#options.bootstrap instanceof URL
            ? String(this.#options.bootstrap)
            : "(object)";
        this.#logger.warn("cannot read the flag bootstrap; waiting for the server", {
          bootstrap: source,
          ...errorFields(error),
        });
      }
    }
    // Both at once: the first poll makes ready() quick whatever the stream does; once the stream
    // is up, polls pause.
    this.#stream?.start();
    await this.#poll();
  }

  async #poll(): Promise<void> {
    clearTimeout(this.#timer);
    if (this.#closed || this.#streaming) return;
    let next = this.#pollMs;
    try {
      const changed = await this.#request();
      if (this.#failures > 0) this.#logger.info("flag snapshot refreshed again", { after_failures: this.#failures });
      this.#failures = 0;
      if (!changed) this.#feed.fresh();
    } catch (error) {
      if (this.#closed) return;
      if (isKeyRefused(error)) return this.#refused(error);
      this.#failures += 1;
      this.#lastError = error;
      if (this.#failures === 1)
        this.#logger.warn(
          this.#loaded
            ? "cannot refresh flags from the server; serving the last snapshot"
            : "cannot load flags from the server; no snapshot yet, so every flag answers its default",
          errorFields(error),
        );
      this.#feed.stale(error);
      const base = Math.min(1_000, this.#pollMs);
      // Equal jitter: never polls again at once, however unlucky the draw.
      next = Math.max(
        backoffDelay(exponential(base, this.#options.maxBackoffMs ?? 60_000, "equal"), this.#failures),
        error instanceof HttpStatusError ? (error.retryAfterMs ?? 0) : 0,
      );
    }
    if (this.#closed || this.#streaming) return;
    this.#timer = setTimeout(() => void this.#poll(), next);
    this.#timer.unref?.();
  }

  /** The key will not get better by asking again: stop polling and streaming, keep serving what we have. */
  #refused(error: FlagpostError): void {
    if (this.#closed) return;
    this.#logger.error("the flag server refused the API key; polling stopped", errorFields(error));
    this.close();
    this.#feed.fail(error);
  }

  #apply(flags: SnapshotFlag[], etag: string | undefined): void {
    if (this.#closed) return;
    this.#feed.replace(flags);
    this.#loaded = true;
    this.#etag = etag;
    clearTimeout(this.#readyTimer);
  }

  /** One conditional GET; true when a new snapshot was applied. */
  async #request(): Promise<boolean> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.apiKey}`,
      accept: "application/json",
    };
    if (this.#etag !== undefined) headers["if-none-match"] = this.#etag;
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(this.#options.timeoutMs ?? 10_000)]);
    const response = await this.#fetch(this.#endpoint, { headers, signal });
    if (response.status === 304) {
      await response.body?.cancel();
      return false;
    }
    if (!response.ok) throw await statusError(response, `GET ${this.#endpoint.pathname}`);
    const flags = parseSnapshot(await response.json());
    if (this.#closed) return false;
    this.#apply(flags, response.headers.get("etag") ?? undefined);
    return true;
  }
}
