import type { FlagpostError } from "../../errors.js";
import { backoffDelay, exponential } from "../../jobs/backoff.js";
import type { SnapshotFlag } from "../evaluation/compile.js";
import { snapshotFlagFromJson } from "../flag-json.js";
import { isKeyRefused, statusError } from "./remote-http.js";
import { type SseEvent, SseParser } from "./sse-parser.js";

/**
 * The remote client's connection to `GET /v1/flags/_stream`: reads the snapshot and each change,
 * reconnects with backoff (src/jobs/backoff.ts) and `Last-Event-ID` when the connection drops,
 * and counts a connection silent for `idleTimeoutMs` (keep-alives come every 15 s) as dropped.
 * Tells its owner (RemotePoller) when it is up, so polling pauses, and when it drops, so polling
 * takes over until it is back.
 */

export interface StreamHandlers {
  /** A snapshot event's body (`{"data": {"version", "flags"}}`), as the snapshot route answers. */
  snapshot(body: unknown): void;
  upsert(flag: SnapshotFlag): void;
  remove(key: string): void;
  /** The first event arrived on a new connection. */
  up(): void;
  /** A connection that was up dropped; the stream reconnects by itself. */
  down(error: unknown): void;
  /** The server refused the key: the stream stops for good. */
  refused(error: FlagpostError): void;
  /** The server offers no stream (404, 405, not text/event-stream): the stream stops for good. */
  unsupported(status: number): void;
}

export interface RemoteStreamOptions {
  apiKey: string;
  fetch: typeof globalThis.fetch;
  /** A connection with no byte for this long is dropped and opened again. */
  idleTimeoutMs: number;
  /** Longest wait between reconnections. */
  maxBackoffMs: number;
}

export const STREAM_ROUTE = "v1/flags/_stream";

class Unsupported extends Error {
  constructor(readonly status: number) {
    super(`the server offers no flag stream (${status})`);
  }
}

export class RemoteStream {
  readonly #endpoint: URL;
  readonly #options: RemoteStreamOptions;
  readonly #handlers: StreamHandlers;
  readonly #closed = new AbortController();
  #lastEventId = "";
  #failures = 0;

  constructor(base: URL, options: RemoteStreamOptions, handlers: StreamHandlers) {
    this.#endpoint = new URL(STREAM_ROUTE, base);
    this.#options = options;
    this.#handlers = handlers;
  }

  start(): void {
    void this.#run();
  }

  close(): void {
    this.#closed.abort();
  }

  async #run(): Promise<void> {
    while (!this.#closed.signal.aborted) {
      let wasUp = false;
      try {
        await this.#connect(() => (wasUp = true));
        throw new Error("the server ended the flag stream");
      } catch (error) {
        if (this.#closed.signal.aborted) return;
        if (isKeyRefused(error)) return this.#handlers.refused(error);
        if (error instanceof Unsupported) return this.#handlers.unsupported(error.status);
        this.#failures = wasUp ? 1 : this.#failures + 1;
        if (wasUp) this.#handlers.down(error);
      }
      const wait = backoffDelay(exponential(1_000, this.#options.maxBackoffMs, "equal"), this.#failures);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        timer.unref?.();
        this.#closed.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  /** One connection, until it ends or fails; `onUp` once its first event arrived. */
  async #connect(onUp: () => void): Promise<void> {
    const connection = new AbortController();
    const signal = AbortSignal.any([this.#closed.signal, connection.signal]);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error("the flag stream fell silent")), this.#options.idleTimeoutMs);
      idle.unref?.();
    };
    try {
      arm();
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.#options.apiKey}`,
        accept: "text/event-stream",
      };
      if (this.#lastEventId !== "") headers["last-event-id"] = this.#lastEventId;
      const response = await this.#options.fetch(this.#endpoint, { headers, signal });
      if (response.status === 404 || response.status === 405) throw new Unsupported(response.status);
      if (!response.ok) throw await statusError(response, `GET ${this.#endpoint.pathname}`);
      if (!response.headers.get("content-type")?.startsWith("text/event-stream") || !response.body) {
        await response.body?.cancel();
        throw new Unsupported(response.status);
      }
      const parser = new SseParser();
      parser.lastEventId = this.#lastEventId;
      const decoder = new TextDecoder();
      let up = false;
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          arm();
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            this.#handle(event);
            this.#lastEventId = event.lastEventId;
            if (!up) {
              up = true;
              onUp();
              this.#handlers.up();
            }
          }
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    } catch (error) {
      throw connection.signal.aborted ? connection.signal.reason : error;
    } finally {
      clearTimeout(idle);
    }
  }

  #handle(event: SseEvent): void {
    const body = JSON.parse(event.data) as { data?: unknown };
    if (event.event === "snapshot") {
      this.#handlers.snapshot(body);
    } else if (event.event === "flag.created" || event.event === "flag.updated") {
      const flag = body.data as SnapshotFlag | undefined;
      if (typeof flag?.key !== "string") throw new Error(`a ${event.event} event without a flag`);
      this.#handlers.upsert(snapshotFlagFromJson(flag));
    } else if (event.event === "flag.deleted") {
      const key = (body.data as { key?: unknown } | undefined)?.key;
      if (typeof key !== "string") throw new Error("a flag.deleted event without a key");
      this.#handlers.remove(key);
    }
    // Other event types (a newer server's) are skipped.
  }
}
