import type { RetryPolicy } from "../jobs/retry-policy.js";

/** How the outbox worker (outbox-worker.ts) runs: `emailWorker` in createFlagpost's options. */
export interface OutboxWorkerOptions {
  /** Sends in flight at once; also the most emails one claim takes. Default 10. */
  concurrency?: number;
  /**
   * How long a claim holds an email. The worker renews its leases every `leaseMs / 3` while its
   * process lives, so a send may outlast it; a crashed process's emails wait at most this long
   * for another process (and not at all for its own restart on the same host). Default 30 s.
   */
  leaseMs?: number;
  /** A send that has not finished after this long counts as a transient failure. Default 60 s. */
  sendTimeoutMs?: number;
  /** How often to look for due emails when nothing wakes the worker. Default 1 s. */
  pollIntervalMs?: number;
  /** Retry budget and backoff. Defaults: 8 attempts, 5 s doubling to at most 30 min, full jitter. */
  retry?: Partial<RetryPolicy>;
  /** Start with `flagpost.ready()`. Default true (when a transport is configured). */
  autoStart?: boolean;
  /**
   * The domain of the VERP return path: each email's envelope sender becomes
   * `bounces+<email id>@<bounceDomain>` and the message asks for DSNs where the server offers
   * them, so the next hop's reports come back naming the email (docs/emails.md). Unset: the
   * envelope sender is the `from` address and no DSN is asked for.
   */
  bounceDomain?: string;
  /**
   * Emails whose stored content is larger than this are claimed without it and read when their
   * turn to be sent comes, so the claimed emails waiting in the worker stay small. Default 1 MiB.
   */
  largeEmailBytes?: number;
  /**
   * The most content of such large emails being sent at once (one larger email is still sent,
   * alone): with `largeEmailBytes`, what bounds the worker's memory in bytes. Default 64 MiB.
   */
  sendingBytes?: number;
}

export const DEFAULT_LEASE_MS = 30_000;
export const DEFAULT_LARGE_EMAIL_BYTES = 1024 * 1024;
export const DEFAULT_SENDING_BYTES = 64 * 1024 * 1024;
