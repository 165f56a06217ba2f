import type { InboundOptions } from "../adapters/http/index.js";
import type { InboundSmtp } from "../adapters/inbound/index.js";
import type { Logger, ReportParser } from "../src/internal.js";
import { UsageError } from "./args.js";

/**
 * Where `flagpost serve` takes delivery reports from (docs/emails.md, "Delivery reports"), from the
 * environment:
 * - FLAGPOST_INBOUND_SMTP_PORT (and FLAGPOST_INBOUND_SMTP_HOST, default 127.0.0.1,
 *   FLAGPOST_INBOUND_SMTP_MAX_BYTES, default 10 MiB): the SMTP listener for DSNs and ARF reports.
 *   It takes recipients at FLAGPOST_INBOUND_SMTP_DOMAINS (comma-separated), else at
 *   FLAGPOST_BOUNCE_DOMAIN, else at any domain.
 * - the provider webhooks' secrets: FLAGPOST_INBOUND_SES_TOPIC_ARNS (comma-separated),
 *   FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY, FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY,
 *   FLAGPOST_INBOUND_POSTMARK_USER + FLAGPOST_INBOUND_POSTMARK_PASSWORD. A provider without its
 *   setting answers 404.
 */

function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function inboundOptionsFrom(env: NodeJS.ProcessEnv): InboundOptions {
  const options: InboundOptions = {};
  const topics = setting(env, "FLAGPOST_INBOUND_SES_TOPIC_ARNS");
  if (topics !== undefined) {
    const topicArns = topics
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
    const bad = topicArns.find((t) => !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/.test(t));
    if (bad !== undefined)
      throw new UsageError(
        `FLAGPOST_INBOUND_SES_TOPIC_ARNS must list SNS topic ARNs (arn:aws:sns:region:account:name), not "${bad}"`,
      );
    options.ses = { topicArns };
  }
  const sendgrid = setting(env, "FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY");
  if (sendgrid !== undefined) options.sendgrid = { publicKey: sendgrid };
  const mailgun = setting(env, "FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY");
  if (mailgun !== undefined) options.mailgun = { signingKey: mailgun };
  const user = setting(env, "FLAGPOST_INBOUND_POSTMARK_USER");
  const password = setting(env, "FLAGPOST_INBOUND_POSTMARK_PASSWORD");
  if ((user === undefined) !== (password === undefined))
    throw new UsageError("FLAGPOST_INBOUND_POSTMARK_USER and FLAGPOST_INBOUND_POSTMARK_PASSWORD go together");
  if (user !== undefined && password !== undefined) {
    if (user.includes(":")) throw new UsageError("FLAGPOST_INBOUND_POSTMARK_USER cannot hold a colon");
    options.postmark = { user, password };
  }
  return options;
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

/** The report parser `flagpost serve` gives createFlagpost when it runs the listener. */
export async function reportParserFor(settings: InboundSmtpSettings | undefined): Promise<ReportParser | undefined> {
  return settings === undefined ? undefined : (await loadInbound()).mailReportParser();
}

/** Starts the listener; each message's outcome is logged (never its content). */
export async function startInboundListener(
  settings: InboundSmtpSettings,
  ingest: (raw: Buffer) => Promise<readonly { outcome: string }[]>,
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
    ingest: async (raw) => {
      const results = await ingest(raw);
      if (results.length === 0) logger.info("inbound message held no delivery report", { bytes: raw.length });
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
