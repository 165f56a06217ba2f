import { parseCorsOrigins } from "../adapters/http/ofrep/cors.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "../adapters/http/index.js";
import { DEFAULT_INSIGHTS_FLUSH_MS } from "../src/flags/insights/index.js";
import { jsonLogger } from "../src/ports/logger.js";
import { UsageError } from "./args.js";
import { positiveFromEnv } from "./env-number.js";
import { ensureStartupKey } from "./keys.js";
import { openMailTransport, workerOptionsFrom } from "./mail-transport.js";
import { DEFAULT_DATABASE } from "./open-database.js";
import { describeDatabase, openFlagpost } from "./open-flagpost.js";
import { webhookOptionsFrom } from "./webhook-settings.js";
import { metricsSettings } from "./metrics-settings.js";
import { drainThen, shutdownDelayFrom } from "./shutdown-drain.js";
import { openRateLimit } from "./rate-limit.js";
import { requestLoggingFrom } from "./request-logging.js";
import { inboundSmtpFrom, inboundSourcesFrom, requireInboundPeers, startInboundListener } from "./inbound-settings.js";
import { reportSettingsFrom } from "./report-settings.js";
import { domainSettingsFrom } from "./domain-settings.js";
import { ofrepStreamsFrom } from "./ofrep-stream-settings.js";

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * How long a client may take to send a whole request (headers and body) and its headers alone.
 * Node's defaults (300 s, 60 s) let a slow authenticated upload hold a connection and its buffered
 * body for five minutes; 60 s still carries a 40 MiB email at about 700 KB/s.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

function positiveIntegerFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return positiveFromEnv(env, name, { integer: true }) ?? fallback;
}

/** The server's timeouts from FLAGPOST_REQUEST_TIMEOUT_MS and FLAGPOST_HEADERS_TIMEOUT_MS. */
export function serverTimeoutsFrom(env: NodeJS.ProcessEnv): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  const requestTimeout = positiveIntegerFrom(env, "FLAGPOST_REQUEST_TIMEOUT_MS", DEFAULT_REQUEST_TIMEOUT_MS);
  // Node requires headersTimeout <= requestTimeout.
  const headersTimeout = Math.min(
    requestTimeout,
    positiveIntegerFrom(env, "FLAGPOST_HEADERS_TIMEOUT_MS", DEFAULT_HEADERS_TIMEOUT_MS),
  );
  // Node checks the timeouts on this interval (30 s by default): keep it a fraction of the shorter one.
  return {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}

function portFrom(env: NodeJS.ProcessEnv): number {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`PORT must be a port number, not "${env.PORT}"`);
  return port;
}

/** `flagpost serve`: the whole service in one process, until SIGINT or SIGTERM. */
export async function serve(env: NodeJS.ProcessEnv): Promise<void> {
  const port = portFrom(env);
  const timeouts = serverTimeoutsFrom(env);
  const requestLogging = requestLoggingFrom(env);
  const metrics = metricsSettings(env);
  const host = env.HOST ?? "127.0.0.1";
  const logger = jsonLogger((line) => process.stdout.write(line));
  const emailWorker = workerOptionsFrom(env);
  // VERP return path bounces+<id>@<domain> and a DSN request (docs/emails.md); the worker checks the name.
  if (env.FLAGPOST_BOUNCE_DOMAIN?.trim()) emailWorker.bounceDomain = env.FLAGPOST_BOUNCE_DOMAIN.trim();
  // Read before anything is opened: a bad value is a usage error with nothing to close.
  const reports = reportSettingsFrom(env);
  const domains = domainSettingsFrom(env);
  const ofrepStreams = ofrepStreamsFrom(env);
  const mail = await openMailTransport(env, logger);
  // ready() (inside openFlagpost) starts the outbox worker; fp.close() drains it and closes the transport.
  const webhooks = webhookOptionsFrom(env);
  const insights = {
    flushIntervalMs: positiveIntegerFrom(env, "FLAGPOST_INSIGHTS_FLUSH_MS", DEFAULT_INSIGHTS_FLUSH_MS),
  };
  const inbound = inboundSourcesFrom(env);
  const inboundSmtp = inboundSmtpFrom(env);
  await requireInboundPeers(inboundSmtp);
  const fp = await openFlagpost(
    env,
    logger,
    {
      transport: mail.transport,
      emailWorker,
      webhooks,
      insights,
      domains,
      ...reports,
    },
    { listen: true, wait: true },
  );
  logger.info("mail transport", { transport: mail.transport.name, target: mail.description });
  const rateLimit = await openRateLimit(env, logger).catch(async (error: unknown) => {
    await fp.close();
    throw error;
  });
  logger.info("rate limit", { counted: rateLimit.description });
  logger.info("request logging", { mode: requestLogging.logRequests, sample: requestLogging.requestLogSample });

  const bodyBudget = env.FLAGPOST_BODY_BUDGET_BYTES
    ? positiveIntegerFrom(env, "FLAGPOST_BODY_BUDGET_BYTES", 0)
    : undefined;
  const server = createServer(
    timeouts,
    toNodeHandler(fp, {
      ...requestLogging,
      logger,
      inbound,
      ...(bodyBudget === undefined ? {} : { bodyBudget }),
      ...(rateLimit.options !== undefined && { rateLimit: rateLimit.options }),
      probes: { shuttingDown: () => draining.started },
      corsOrigins: parseCorsOrigins(env.FLAGPOST_CORS_ORIGINS),
      ofrepStreams,
      metrics,
    }),
  );
  let listener: Awaited<ReturnType<typeof startInboundListener>> | undefined;

  // Signal handlers go in before the server listens (and before "listening" is logged): a signal
  // that arrives earlier would otherwise meet Node's default handler and kill the process mid-write.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // Stop accepting, let requests in flight finish, then drain the outbox worker and close storage;
    // force after the grace period.
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    // The report listener closes first (its messages in flight are stored), then storage.
    const closeStorage = () =>
      Promise.resolve(listener?.close())
        .then(() => Promise.all([fp.close(), rateLimit.close()]))
        .then(
          () => logger.info("stopped"),
          (error: unknown) => {
            logger.error("shutdown failed", { error: error instanceof Error ? error.name : String(error) });
            process.exitCode = 1;
          },
        );
    // Flag streams never end by themselves: end them first (each body ends cleanly), or
    // server.close() would wait the whole grace period for them and then cut them off.
    fp.flagStream.close();
    if (server.listening) {
      server.close(() => void closeStorage());
      server.closeIdleConnections();
    } else {
      void closeStorage();
    }
  };
  // /ready turns 503 at the signal; the server keeps accepting for FLAGPOST_SHUTDOWN_DELAY_MS first.
  const draining = drainThen(shutdownDelayFrom(env), stop, logger);
  process.once("SIGINT", () => draining.start("SIGINT"));
  process.once("SIGTERM", () => draining.start("SIGTERM"));

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    await Promise.all([fp.close(), rateLimit.close()]); // e.g. the port is taken: release the database so the process can exit
    throw error;
  }
  // The key comes after the port is bound: a key printed by a server that then cannot listen
  // would be shown once and lost. Requests arriving meanwhile are checked against storage as usual.
  try {
    await ensureStartupKey(fp, env.FLAGPOST_API_KEY, { out: (line) => process.stdout.write(`${line}\n`) });
    if (inboundSmtp && !stopping) {
      const started = await startInboundListener(inboundSmtp, (reports) => fp.emails.applyReports(reports), logger);
      // A signal during the start found no listener to close: close it here.
      if (stopping) await started.close();
      else listener = started;
    }
  } catch (error) {
    if (stopping) return; // a signal closed storage under the key check: the shutdown is under way
    server.close();
    server.closeAllConnections();
    await Promise.all([fp.close(), rateLimit.close()]); // the outbox worker would keep the process alive
    throw error;
  }
  if (stopping) return;
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info("listening", {
    url,
    api: `${url}/v1`,
    dashboard: `${url}/dashboard`,
    db: describeDatabase(env.FLAGPOST_DB ?? DEFAULT_DATABASE),
  });
}
