import type { Logger } from "../../src/ports/logger.js";
import type { HttpRequest } from "./types.js";

export const REQUEST_LOGGING = ["off", "sampled", "all"] as const;
export type RequestLogging = (typeof REQUEST_LOGGING)[number];
export const DEFAULT_REQUEST_LOG_SAMPLE = 100;

/**
 * Request lines at info level (`logRequests`): every request, none, or every 5xx and exactly one
 * in `sampleEvery` of the rest (counted, not drawn), each sampled line saying how many it stands for.
 */
export class RequestLog {
  readonly #logging: RequestLogging;
  readonly #sampleEvery: number;
  readonly #logger: Logger;
  /** Requests since the last sampled line (not 5xx). */
  #unsampled = 0;

  constructor(logging: RequestLogging, sampleEvery: number, logger: Logger) {
    this.#logging = logging;
    this.#sampleEvery = Math.max(1, Math.floor(sampleEvery));
    this.#logger = logger;
  }

  get off(): boolean {
    return this.#logging === "off";
  }

  write(request: HttpRequest, status: number, startedAt: number): void {
    if (this.#logging === "off") return;
    let sample: number | undefined;
    if (this.#logging === "sampled" && status < 500) {
      if (++this.#unsampled < this.#sampleEvery) return;
      this.#unsampled = 0;
      sample = this.#sampleEvery;
    }
    this.#logger.info("request", {
      method: request.method,
      path: request.path,
      status,
      duration_ms: Math.round((performance.now() - startedAt) * 100) / 100,
      ...(sample === undefined ? {} : { sample }),
    });
  }
}
