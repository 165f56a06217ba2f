import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { Storage } from "../ports/storage/index.js";
import { type Resolver, systemResolver } from "./address-policy.js";
import { WebhookWorker, type WebhookWorkerOptions } from "./delivery-worker.js";
import { WebhookSender } from "./sender.js";
import { WebhookService } from "./webhook-service.js";

export interface WebhookOptions extends WebhookWorkerOptions {
  /**
   * Let endpoints resolve to loopback, private and link-local addresses (a receiver on the same
   * host or network). Default false: such endpoints are refused when created and when connecting.
   */
  allowPrivateNetworks?: boolean;
  /** How endpoint host names become addresses; default the system resolver (tests inject one). */
  resolve?: Resolver;
  /** Deadline of one attempt: connecting, sending, reading the answer. Default 10 s. */
  timeoutMs?: number;
}

/** Wires `fp.webhooks`: the service, its delivery worker and the sender they share. */
export function createWebhooks(
  deps: { storage: Storage; clock: Clock; logger: Logger },
  options: WebhookOptions = {},
): { service: WebhookService; close(): void } {
  const policy = {
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    resolve: options.resolve ?? systemResolver,
  };
  const sender = new WebhookSender({
    ...policy,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    maxSockets: options.concurrency ?? 10,
  });
  const worker = new WebhookWorker({ ...deps, sender }, options);
  return { service: new WebhookService(deps.storage, deps.clock, policy, worker), close: () => sender.close() };
}
