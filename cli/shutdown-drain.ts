import type { Logger } from "../src/ports/logger.js";
import { positiveFromEnv } from "./env-number.js";

/**
 * The first step of `flagpost serve`'s shutdown: from the signal on, `GET /ready` answers 503
 * (`started` is true), and for FLAGPOST_SHUTDOWN_DELAY_MS the server goes on accepting and
 * answering, so a load balancer or Kubernetes sees the process leave before its connections are
 * refused. Then `stop` runs the shutdown proper. Without a delay (the default) it runs at once.
 */

export function shutdownDelayFrom(env: NodeJS.ProcessEnv): number {
  return positiveFromEnv(env, "FLAGPOST_SHUTDOWN_DELAY_MS", { integer: true }) ?? 0;
}

export function drainThen(
  delayMs: number,
  stop: (signal: string) => void,
  logger: Logger,
): { readonly started: boolean; start(signal: string): void } {
  let started = false;
  return {
    get started() {
      return started;
    },
    start(signal) {
      if (started) return;
      started = true;
      if (delayMs === 0) return stop(signal);
      logger.info("draining: /ready answers 503 before the server stops accepting", { signal, delay_ms: delayMs });
      // A second signal meets Node's default handler (the handlers are process.once) and ends the process.
      setTimeout(() => stop(signal), delayMs);
    },
  };
}
