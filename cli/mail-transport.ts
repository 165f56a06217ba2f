import type { Logger } from "../src/ports/logger.js";
import type { MailTransport } from "../src/ports/transport.js";
import type { OutboxWorkerOptions } from "../src/emails/index.js";
import { importWithPeers } from "../src/optional-peer.js";
import { UsageError } from "./args.js";
import { positiveFromEnv } from "./env-number.js";

/**
 * The CLI's mail transport and outbox settings, from the environment (the library itself only
 * takes a ready transport):
 * - FLAGPOST_SMTP_URL `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`
 *   (TLS from the start): a pooled nodemailer SMTP transport. nodemailer's own URL options work
 *   too (`?pool=false`, `?maxConnections=10`).
 * - unset: the development transport, one `.eml` file per email under FLAGPOST_OUTBOX_DIR
 *   (default ./outbox), each logged with its path, so a fresh `npm start` sends "for real" and
 *   every message can be opened in a mail client.
 */

export const DEFAULT_OUTBOX_DIR = "./outbox";

export interface MailSetup {
  transport: MailTransport;
  /** For the startup log line; a password in the URL is masked. */
  description: string;
}

/** A URL as it may be shown in a log line or an error: its password masked. */
export function maskUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable URL)";
  }
}

/** nodemailer is an optional peer dependency: loaded only by `serve`, with a clear message when missing. */
async function loadNodemailer() {
  // nodemailer first: without it the adapter's entry would report itself, not `flagpost serve`.
  const { default: nodemailer } = await importWithPeers("flagpost serve", ["nodemailer"], () => import("nodemailer"));
  return { nodemailer, ...(await import("../adapters/nodemailer/index.js")) };
}

/**
 * FLAGPOST_DKIM_SIGNING_THREADS: how many worker threads may DKIM-sign at once, a whole number of
 * 0 or more (0: on the event loop with the RSA operation on libuv's pool); unset or blank: the
 * transport's default, one per spare core (docs/domains.md, "Signing").
 */
export function signingThreadsFrom(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.FLAGPOST_DKIM_SIGNING_THREADS?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(`FLAGPOST_DKIM_SIGNING_THREADS must be a whole number of 0 or more, not "${text}"`);
  return value;
}

export async function openMailTransport(env: NodeJS.ProcessEnv, logger: Logger): Promise<MailSetup> {
  const signingThreads = signingThreadsFrom(env);
  const threads = signingThreads === undefined ? {} : { signingThreads };
  const url = env.FLAGPOST_SMTP_URL?.trim();
  if (url) {
    const scheme = /^([a-z]+):\/\//i.exec(url)?.[1]?.toLowerCase();
    if (scheme !== "smtp" && scheme !== "smtps")
      throw new UsageError(`FLAGPOST_SMTP_URL must start with smtp:// or smtps://, not "${scheme ?? url}"`);
    const { nodemailer, nodemailerTransport } = await loadNodemailer();
    const transporter = nodemailer.createTransport({
      url,
      pool: true,
      // Below the worker's send timeout, so nodemailer gives up first and says why.
      connectionTimeout: 20_000,
      greetingTimeout: 20_000,
      socketTimeout: 45_000,
    });
    return {
      transport: nodemailerTransport(transporter, { name: "smtp", closeTransporter: true, ...threads }),
      description: maskUrl(url),
    };
  }
  const directory = env.FLAGPOST_OUTBOX_DIR?.trim() || DEFAULT_OUTBOX_DIR;
  const { emlFileTransport } = await loadNodemailer();
  const transport = emlFileTransport({
    directory,
    ...threads,
    onWritten: (file, message, recipients) =>
      logger.info("email written", { id: message.id, file, envelope_to: recipients }),
  });
  return { transport, description: `.eml files in ${directory} (set FLAGPOST_SMTP_URL to send over SMTP)` };
}

/** Outbox worker settings from FLAGPOST_EMAIL_* (each optional; see the usage text). */
export function workerOptionsFrom(env: NodeJS.ProcessEnv): OutboxWorkerOptions {
  const options: OutboxWorkerOptions = {};
  const concurrency = positiveFromEnv(env, "FLAGPOST_EMAIL_CONCURRENCY", { integer: true });
  const leaseMs = positiveFromEnv(env, "FLAGPOST_EMAIL_LEASE_MS", { integer: true });
  const maxAttempts = positiveFromEnv(env, "FLAGPOST_EMAIL_MAX_ATTEMPTS", { integer: true });
  const initialDelayMs = positiveFromEnv(env, "FLAGPOST_EMAIL_RETRY_BASE_MS", { integer: true });
  const maxDelayMs = positiveFromEnv(env, "FLAGPOST_EMAIL_RETRY_MAX_MS", { integer: true });
  if (concurrency !== undefined) options.concurrency = concurrency;
  // Leases are renewed while the process lives: the send timeout (60 s) need not fit in one.
  if (leaseMs !== undefined) options.leaseMs = leaseMs;
  const retry: NonNullable<OutboxWorkerOptions["retry"]> = {};
  if (maxAttempts !== undefined) retry.maxAttempts = maxAttempts;
  if (initialDelayMs !== undefined) retry.initialDelayMs = initialDelayMs;
  if (maxDelayMs !== undefined) retry.maxDelayMs = maxDelayMs;
  if (Object.keys(retry).length > 0) options.retry = retry;
  return options;
}
