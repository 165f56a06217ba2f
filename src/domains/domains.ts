import { Resolver } from "node:dns/promises";
import { hostname } from "node:os";
import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import type { LeasedJob } from "../jobs/job-queue.js";
import { LeaseWorker } from "../jobs/lease-worker.js";
import { periodicQueue } from "../jobs/periodic-queue.js";
import type { Logger } from "../ports/logger.js";
import { ServerSecret } from "../server-secret.js";
import type { Storage } from "../ports/storage/index.js";
import type { DnsResolver } from "./dns-verification.js";
import { DomainService } from "./domain-service.js";
import { SendingDomains } from "./sending-domains.js";
import type { ReputationGuard } from "./reputation-guard.js";
import type { ReputationOptions } from "./reputation-window.js";

export interface DomainOptions {
  /** Resolves the records; default the system's resolver (`serve`: FLAGPOST_DNS_SERVERS). */
  resolver?: DnsResolver;
  /** Host the return-path MX record points at (flagpost's inbound MTA). Default this machine's host name. */
  mxHost?: string;
  /** SPF mechanisms authorising the hosts that send, e.g. `ip4:192.0.2.1`. Default `mx`. */
  spf?: string;
  /** How often verified, pending and failed domains are checked again. Default 1 h. */
  recheckIntervalMs?: number;
  /** Start the recheck with `flagpost.ready()`. Default true. */
  autoStart?: boolean;
  /**
   * Refuse sends whose `from` domain is not a verified domain (422 `validation_error` naming
   * `from`), as Resend does; `serve`: FLAGPOST_REQUIRE_VERIFIED_DOMAIN. Default false.
   */
  requireVerified?: boolean;
  /** The reputation guard's window and thresholds (docs/domains.md, "Reputation guard"). */
  reputation?: ReputationOptions;
}

export const DEFAULT_RECHECK_MS = 60 * 60 * 1000;

/** DNS servers as `host:port` (or bare hosts), comma-separated, as FLAGPOST_DNS_SERVERS gives them. */
export function resolverFor(servers: string): DnsResolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(
    servers
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );
  return resolver;
}

/**
 * The domain service and its recheck: a {@link LeaseWorker} over a {@link periodicQueue} that
 * every `recheckIntervalMs` checks the domains last checked longer ago than that. Every process
 * runs its own; a second check of a domain only finds what the first found.
 */
export function createDomains(
  deps: { storage: Storage; clock: Clock; logger: Logger; secretKey: string | undefined; reputation: ReputationGuard },
  options: DomainOptions = {},
): {
  service: DomainService;
  recheck: LeaseWorker<LeasedJob, number> & { readonly autoStart: boolean };
  /** Verified domains' signing keys and return paths, for the outbox worker and `requireVerified`. */
  sending: SendingDomains;
} {
  const intervalMs = options.recheckIntervalMs ?? DEFAULT_RECHECK_MS;
  if (!(intervalMs > 0)) throw new FlagpostError("validation_error", "domains.recheckIntervalMs must be above 0");
  const { storage, clock, logger } = deps;
  const secret = deps.secretKey ? new ServerSecret(storage, deps.secretKey) : undefined;
  const sealingKey = async () => secret?.keyFor("dkim-private-key");
  const sending = new SendingDomains({ storage, clock, sealingKey });
  const service = new DomainService({
    storage,
    clock,
    resolver: options.resolver ?? new Resolver(),
    sealingKey,
    mxHost: options.mxHost ?? hostname(),
    spf: options.spf ?? "mx",
    onChange: () => sending.forget(),
    reputation: deps.reputation,
  });
  const worker = new LeaseWorker(
    periodicQueue(clock, "domain-recheck", intervalMs),
    {
      perform: () => service.recheck(intervalMs),
      record: async (_job, checked) => {
        if (checked > 0) logger.info("rechecked domain DNS records", { checked });
      },
    },
    clock,
    logger,
    { name: "domain recheck", concurrency: 1, leaseMs: intervalMs, pollIntervalMs: Math.min(60_000, intervalMs) },
  );
  return { service, recheck: Object.assign(worker, { autoStart: options.autoStart ?? true }), sending };
}
