import { ApiKeys } from "./auth/api-keys.js";
import { type Clock, systemClock } from "./ports/clock.js";
import { type ExposureOptions, ExposureRecorder } from "./flags/client/exposures.js";
import { FlagClient, type FlagContext, type ValueContext, type VariantContext } from "./flags/client/flag-client.js";
import { createDomains, type DomainOptions } from "./domains/domains.js";
import type { DomainService } from "./domains/domain-service.js";
import { ReputationGuard } from "./domains/reputation-guard.js";
import { reputationSettings } from "./domains/reputation-window.js";
import { EmailService } from "./emails/email-service.js";
import type { OutboxWorkerOptions } from "./emails/outbox-options.js";
import { OutboxWorker } from "./emails/outbox-worker.js";
import { SuppressionService } from "./emails/suppression-service.js";
import { type SuppressionOptions, SuppressionPolicy } from "./emails/suppression-policy.js";
import { VerpTags } from "./emails/verp-tag.js";
import { UnsubscribeLinks } from "./emails/unsubscribe-links.js";
import { ServerSecret } from "./server-secret.js";
import { StreamTokens } from "./auth/stream-tokens.js";
import { EventTracker, type EventTrackerOptions } from "./events/event-tracker.js";
import { ExperimentService } from "./experiments/experiment-results.js";
import { FlagInsights } from "./flags/insights/flag-insights.js";
import { idempotencyPurger, type IdempotencyPurgeOptions } from "./idempotency-purge.js";
import { FlagStore } from "./flags/store/flag-store.js";
import { FlagStream, type FlagStreamOptions } from "./flags/store/flag-stream.js";
import { ScheduleWorker, type ScheduleWorkerOptions } from "./flags/schedules/schedule-worker.js";
import { type InsightsOptions, InsightsRecorder } from "./flags/insights/insights-recorder.js";
import { StoreSync, type StoreSyncOptions } from "./flags/client/store-sync.js";
import { asLogger, defaultLogger, errorFields, type Logger } from "./ports/logger.js";
import type { Storage } from "./ports/storage/index.js";
import { MetricsCounters, type MetricsSnapshot } from "./metrics/counters.js";
import { countingStorage } from "./metrics/counting-storage.js";
import { Overview } from "./metrics/overview.js";
import type { MailTransport } from "./ports/transport.js";
import type { WebhookService } from "./webhooks/webhook-service.js";
import { createWebhooks, type WebhookOptions } from "./webhooks/webhooks.js";

export interface FlagpostOptions {
  storage: Storage;
  /** Reads the time; tests pass a fake. */
  clock?: Clock;
  /** Defaults to JSON lines on stderr for warnings and errors. */
  logger?: Logger;
  /** How the in-process flag snapshot behind `isEnabled` notices writes of other processes. */
  flagSync?: StoreSyncOptions;
  /** Opt-in `$exposure` events from `isEnabled` (see docs/flags.md). */
  exposures?: ExposureOptions;
  /** Evaluation counts: how often they are stored, and when a flag counts as stale (docs/flags.md "Insights"). */
  insights?: InsightsOptions;
  /**
   * Hands queued emails on (flagpost/nodemailer). With one, `ready()` starts the outbox worker
   * and `close()` drains it and then calls the transport's `close()`. Without one, emails are
   * stored and wait for a process that has one (several processes can share the storage).
   */
  transport?: MailTransport;
  /** Outbox worker settings: concurrency, lease, retry budget, `autoStart`. */
  emailWorker?: OutboxWorkerOptions;
  /**
   * When delivery reports suppress addresses (docs/emails.md, "Suppression"): hard bounces about
   * the recipient and complaints always; `softBounces: {count, days}` adds repeated soft bounces.
   */
  suppression?: SuppressionOptions;
  /**
   * The server's secret (`FLAGPOST_SECRET_KEY`): the key of VERP tags. Unset, a random one is
   * generated once and kept in storage, shared by every process using it.
   */
  secretKey?: string;
  /**
   * Where this server is reached from the internet, with the mount path if any
   * (`FLAGPOST_PUBLIC_URL`, e.g. "https://mail.example.com"): the base of the one-click unsubscribe
   * links of `unsubscribe: true`. Unset, such sends are refused (docs/emails.md).
   */
  publicUrl?: string;
  /** Event tracking: the buffer behind `events.enqueue`. */
  events?: EventTrackerOptions;
  /** Outbound webhooks: private networks, retry schedule, worker settings (docs/webhooks.md). */
  webhooks?: WebhookOptions;
  /** The worker applying scheduled flag changes (docs/flags.md): `autoStart`, poll interval, lease, retry. */
  flagSchedules?: ScheduleWorkerOptions;
  /** The change feed behind `GET /v1/flags/_stream`: keep-alive period, batches kept for resuming. */
  flagStream?: FlagStreamOptions;
  /** Sending domains: DNS resolver, return-path MX host, SPF, recheck interval (docs/domains.md). */
  domains?: DomainOptions;
  /** Deleting expired Idempotency-Keys: every hour by default (docs/emails.md, "Idempotency"). */
  idempotencyPurge?: IdempotencyPurgeOptions;
  /** `fp.metrics()` and `GET /metrics`: how many flag keys get their own series (default 200; the rest `__other__`). */
  metrics?: { maxFlagKeys?: number };
}

export interface Flagpost {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly flags: FlagStore;
  readonly keys: ApiKeys;
  /**
   * Every flag change from any process sharing the storage, as batches labelled with the flags
   * revision (what `GET /v1/flags/_stream` sends): `flagStream.subscribe(subscriber, lastRevision?)`.
   */
  readonly flagStream: FlagStream;
  /** Signed tokens of the OFREP event-stream links: a key id, its scope and an expiry (docs/ofrep.md "Event streams"). */
  readonly streamTokens: StreamTokens;
  /** The in-process flag snapshot; `flagClient.evaluate(key, ctx)` gives the reason too. */
  readonly flagClient: FlagClient;
  /** `flagInsights.get(key)`: hourly evaluation counts and lastEvaluatedAt; `stale()`; `flush()`. */
  readonly flagInsights: FlagInsights;
  /**
   * Synchronous and never throws: whether the flag is on for this context, from the in-process
   * snapshot. Unknown flag, not ready yet (before `ready()` resolves) or any failure → `default`.
   */
  isEnabled(key: string, context?: FlagContext): boolean;
  /**
   * Synchronous and never throws: the user's sticky variant of a flag with variants, from the
   * in-process snapshot; `default` (undefined when omitted) when the flag is off for them, has no
   * variants, is unknown, or anything fails. Records an exposure with the variant when exposures are on.
   */
  getVariant(key: string, context?: VariantContext): string | undefined;
  /**
   * Synchronous and never throws: the value of the user's variant (docs/flags.md "Values");
   * `defaultValue` when the flag is off for them, unknown, has no values, or its values' JSON type
   * is not `defaultValue`'s. `flagClient.getValueDetail` gives the reason too.
   */
  getValue<T>(key: string, context: ValueContext | undefined, defaultValue: T): T;
  /** send, sendBatch, get, recordEvent, events, applyReports; `emails.worker` when a transport is configured. */
  readonly emails: EmailService;
  /** The suppression list by hand: add, addBatch, list, get, remove, removeBatch (Resend's shapes). */
  readonly suppressions: SuppressionService;
  readonly events: EventTracker;
  /** `experiments.results(id, {metric, control?, from?, to?})`: per-variant results with statistics (docs/experiments.md). */
  readonly experiments: ExperimentService;
  /** Outbound webhooks: endpoints, their events and attempts, replay (docs/webhooks.md); `webhooks.worker` sends. */
  readonly webhooks: WebhookService;
  /** Sending domains: DKIM keys, the DNS records to publish, verification (docs/domains.md). */
  readonly domains: DomainService;
  /** Runs migrations and starts background work. Safe to call many times; resolves once ready. */
  ready(): Promise<void>;
  /**
   * Stops background work and closes what flagpost opened. Safe to call many times. Buffered events
   * are stored first; if some cannot be (storage down past `events.buffer.closeTimeoutMs`), storage
   * still closes and the promise rejects with `unavailable`.
   */
  close(): Promise<void>;
  /** Counters since this process started (docs/operations.md): sends, bounces, events, evaluations, storage errors. */
  metrics(): MetricsSnapshot;
  /** `overview.read()`: the outbox, sends/bounces/complaints per hour, events per minute, failing endpoints (GET /v1/overview). */
  readonly overview: Overview;
}

/** The composition root: wires one Storage into the services. */
export function createFlagpost(options: FlagpostOptions): Flagpost {
  const counters = new MetricsCounters(options.metrics?.maxFlagKeys);
  const storage = countingStorage(options.storage, counters);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ? asLogger(options.logger) : defaultLogger;
  const keys = new ApiKeys(storage, clock);
  const events = new EventTracker(storage, clock, logger, options.events);
  // Exposures go to the event tracker unless the caller names another sink.
  const exposureSink = options.exposures?.enabled ? (options.exposures.sink ?? events) : undefined;
  const exposures = exposureSink && new ExposureRecorder(exposureSink, { ...options.exposures, clock, logger });
  if (exposures && exposureSink === events) events.beforeFlush(() => exposures.flush());
  const { client: flagClient, feed } = FlagClient.create({ exposures, logger, collectCounts: true });
  const recorder = new InsightsRecorder(flagClient, storage, clock, logger, options.insights);
  recorder.onTaken = (flagKey, count) => counters.evaluations(flagKey, count);
  counters.beforeRead = () => recorder.takeNow();
  const flagInsights = new FlagInsights(storage, clock, recorder, options.insights?.staleAfterDays);
  const flags = new FlagStore(
    storage,
    clock,
    (error) => logger.error("flag change listener failed", errorFields(error)),
    { snapshot: flagClient, staleness: flagInsights },
  );
  const flagSync = new StoreSync(flags, storage, feed, logger, options.flagSync);
  const flagStream = new FlagStream(flags, logger, options.flagStream);
  flagSync.onReload((revision, all) => flagStream.offer(revision, all));
  const transport = options.transport;
  const secret = new ServerSecret(storage, options.secretKey);
  const verpTags = new VerpTags(secret);
  const unsubscribeLinks = new UnsubscribeLinks(secret, options.publicUrl);
  const policy = new SuppressionPolicy(storage, clock, options.suppression);
  const reputation = new ReputationGuard({ storage, clock }, reputationSettings(options.domains?.reputation));
  const domains = createDomains({ storage, clock, logger, secretKey: options.secretKey, reputation }, options.domains);
  const signers = domains.sending;
  const worker = transport
    ? new OutboxWorker({ storage, transport, clock, logger, verpTags, policy, signers }, options.emailWorker)
    : undefined;
  const emails = new EmailService(storage, clock, worker, {
    reputation,
    policy,
    verpTags,
    unsubscribeLinks,
    ...(options.domains?.requireVerified ? { verifiedSenders: signers } : {}),
  });
  const webhooks = createWebhooks({ storage, clock, logger }, options.webhooks);
  const scheduleWorker = new ScheduleWorker({ storage, flags, clock, logger }, options.flagSchedules);
  flags.schedules.subscribe((schedule) => scheduleWorker.wakeAt(Date.parse(schedule.at)));
  const purger = idempotencyPurger({ storage, clock, logger }, options.idempotencyPurge);

  let readying: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  return {
    storage,
    clock,
    logger,
    flags,
    keys,
    flagStream,
    streamTokens: new StreamTokens(secret),
    flagClient,
    flagInsights,
    isEnabled: (key, context) => flagClient.isEnabled(key, context),
    getVariant: (key, context) => flagClient.getVariant(key, context),
    getValue: (key, context, defaultValue) => flagClient.getValue(key, context, defaultValue),
    emails,
    suppressions: new SuppressionService(storage, clock, unsubscribeLinks),
    events,
    experiments: new ExperimentService(storage),
    webhooks: webhooks.service,
    domains: domains.service,
    metrics: () => counters.snapshot(),
    overview: new Overview(storage, clock, () => counters.snapshot()),
    ready() {
      if (closing) return Promise.reject(new Error("flagpost is closed"));
      readying ??= (async () => {
        await storage.migrate();
        await flagSync.start();
        recorder.start();
        if (worker?.autoStart && !closing) worker.start();
        if (webhooks.service.worker.autoStart && !closing) webhooks.service.worker.start();
        if (scheduleWorker.autoStart && !closing) scheduleWorker.start();
        if (purger.autoStart && !closing) purger.start();
        if (domains.recheck.autoStart && !closing) domains.recheck.start();
      })();
      return readying;
    },
    close() {
      closing ??= (async () => {
        flagStream.close(); // open streams end cleanly, before the storage behind them goes
        await readying?.catch(() => undefined); // a failed start has nothing to drain
        await scheduleWorker.stop(); // a schedule being applied is recorded before storage closes
        await purger.stop(); // a purge under way ends before storage closes
        await domains.recheck.stop(); // a recheck under way is stored before storage closes
        await flagClient.close(); // stops the flag sync, hands buffered exposures to the event tracker
        await recorder.close(); // stores the evaluation counts (a failure is logged, not thrown)
        await worker?.stop(); // sends in flight finish and are recorded before storage closes
        await transport?.close?.();
        await webhooks.service.worker.stop(); // attempts under way finish and are recorded before storage closes
        webhooks.close();
        // Buffered events are stored (or counted as lost) before storage closes; storage closes either way.
        const drained = await events.close().then(
          () => undefined,
          (error: unknown) => error,
        );
        await storage.close();
        if (drained !== undefined) throw drained;
      })();
      return closing;
    },
  };
}
