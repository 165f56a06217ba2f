import { PROVIDER_INTAKES, type ProviderIntake } from "../adapters/inbound/providers/index.js";
import type { InboundSmtp } from "../adapters/inbound/index.js";
import type { DeliveryReport } from "../src/emails/index.js";
import type { Logger } from "../src/ports/logger.js";
import type { ReportSource } from "../src/ports/report-source.js";
import { UsageError } from "./args.js";

/**
 * Where `flagpost serve` takes delivery reports from (docs/emails.md, "Delivery reports"), from the
 * environment:
 * - FLAGPOST_INBOUND_SMTP_PORT (and FLAGPOST_INBOUND_SMTP_HOST, default 127.0.0.1,
 *   FLAGPOST_INBOUND_SMTP_MAX_BYTES, default 10 MiB): the SMTP listener for DSNs and ARF reports.
 *   It takes recipients at FLAGPOST_INBOUND_SMTP_DOMAINS (comma-separated), else at
 *   FLAGPOST_BOUNCE_DOMAIN, else at any domain.
 * - the provider webhooks' settings, each declared and read by its provider (PROVIDER_INTAKES,
 *   adapters/inbound/providers/index.ts; `flagpost --help` lists them). A provider without its
 *   settings answers 404.
 */

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** The report sources the environment configures, for the HTTP layer's `inbound`. */
export function inboundSourcesFrom(
  env: NodeJS.ProcessEnv,
  intakes: readonly ProviderIntake[] = PROVIDER_INTAKES,
): ReportSource[] {
  const sources: ReportSource[] = [];
  for (const intake of intakes) {
    let source: ReportSource | undefined;
    const read = (name: string) => {
      // The help lists an intake's declared settings: one read without being declared would be missing there.
      if (!intake.settings.includes(name))
        throw new Error(`The ${intake.name} intake reads ${name} without listing it`);
      return setting(env, name);
    };
    try {
      source = intake.fromSettings(read);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (source !== undefined) sources.push(source);
  }
  return sources;
}

export interface InboundSmtpSettings {
  host: string;
  port: number;
  maxBytes: number | undefined;
  domains: string[];
}

/** The listener's settings, or undefined when FLAGPOST_INBOUND_SMTP_PORT is unset. */
export function inboundSmtpFrom(env: NodeJS.ProcessEnv): InboundSmtpSettings | undefined {
  const rawPort = setting(env, "FLAGPOST_INBOUND_SMTP_PORT");
  if (rawPort === undefined) return undefined;
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`FLAGPOST_INBOUND_SMTP_PORT must be a port number, not "${rawPort}"`);
  const rawMax = setting(env, "FLAGPOST_INBOUND_SMTP_MAX_BYTES");
  const maxBytes = rawMax === undefined ? undefined : Number(rawMax);
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes < 1024))
    throw new UsageError(`FLAGPOST_INBOUND_SMTP_MAX_BYTES must be a whole number of at least 1024, not "${rawMax}"`);
  const domains = (setting(env, "FLAGPOST_INBOUND_SMTP_DOMAINS") ?? setting(env, "FLAGPOST_BOUNCE_DOMAIN") ?? "")
    .split(",")
    .map((d) => d.trim())
    .filter((d) => d !== "");
  return {
    host: setting(env, "FLAGPOST_INBOUND_SMTP_HOST") ?? "127.0.0.1",
    port,
    maxBytes,
    domains,
  };
}

/** mailparser and smtp-server are optional peer dependencies: loaded only when the listener is asked for. */
async function loadInbound() {
  try {
    return await import("../adapters/inbound/index.js");
  } catch (error) {
    throw new UsageError(
      `FLAGPOST_INBOUND_SMTP_PORT needs the "mailparser" and "smtp-server" packages: npm install mailparser smtp-server (${(error as Error).message})`,
    );
  }
}

/** Fails at once, before anything is opened, when the listener is asked for and its peers are missing. */
export async function requireInboundPeers(settings: InboundSmtpSettings | undefined): Promise<void> {
  if (settings !== undefined) await loadInbound();
}

/** Starts the listener; each message's outcome is logged (never its content). */
export async function startInboundListener(
  settings: InboundSmtpSettings,
  apply: (reports: DeliveryReport[]) => Promise<readonly { outcome: string }[]>,
  logger: Logger,
): Promise<InboundSmtp> {
  const { startInboundSmtp } = await loadInbound();
  // The listener also reports a failed bind as a session error; while binding, the error below
  // says what happened instead.
  let binding = true;
  const listenerLogger: Logger = {
    info: (message, fields) => logger.info(message, fields),
    warn: (message, fields) => {
      if (!(binding && fields?.code === "EADDRINUSE")) logger.warn(message, fields);
    },
    error: (message, fields) => logger.error(message, fields),
  };
  const listener = await startInboundSmtp({
    apply: async (reports) => {
      const results = await apply(reports);
      if (results.length === 0) logger.info("inbound message held no delivery report");
      else logger.info("inbound reports", { outcomes: results.map((r) => r.outcome) });
    },
    host: settings.host,
    port: settings.port,
    domains: settings.domains,
    logger: listenerLogger,
    ...(settings.maxBytes === undefined ? {} : { maxBytes: settings.maxBytes }),
  }).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    throw new Error(
      `FLAGPOST_INBOUND_SMTP_PORT: port ${settings.port} on ${settings.host} is already in use; stop what ` +
        "listens there, choose another port, or unset FLAGPOST_INBOUND_SMTP_PORT to serve without the report listener",
      { cause: error },
    );
  });
  binding = false;
  logger.info("inbound smtp listening", { host: listener.host, port: listener.port, domains: settings.domains });
  return listener;
}
