import type { SendMailOptions } from "nodemailer";
import type { MailTransport, OutgoingMessage, TransportResult } from "../../src/ports/transport.js";
import { classifyError, rejectionsOf } from "./classify.js";
import { toMailOptions, unsignedMailOptions } from "./mail-options.js";
import { providerMessageIdOf } from "./provider-id.js";
import { checkedSigningThreads } from "./signing-place.js";
import { signingFailureIn, signsInPipeline, toBeSigned } from "./signing-plugin.js";

/** The part of a nodemailer transporter (`nodemailer.createTransport(…)`) that flagpost uses. */
export interface NodemailerTransporter {
  sendMail(mail: SendMailOptions): Promise<unknown>;
  close?(): void;
}

export interface NodemailerTransportOptions {
  /** For logs. Default "nodemailer". */
  name?: string;
  /**
   * What a successful send means. `sent` (default): handed to the next hop, as with SMTP.
   * `delivered`: the transporter is the final stop (it writes files, it is a test sink).
   */
  reports?: "sent" | "delivered";
  /** Close the transporter (its SMTP pool) in `close()`. Default false: it stays the caller's. */
  closeTransporter?: boolean;
  /**
   * How many worker threads may DKIM-sign at once. Default: one per core the event loop leaves
   * spare (`os.availableParallelism() - 1`). 0: no thread; the event loop canonicalizes and hashes
   * and the RSA operation runs on libuv's pool, which costs less CPU when the process has one core
   * (docs/domains.md, "Signing").
   */
  signingThreads?: number;
}

interface SentInfo {
  messageId?: unknown;
  accepted?: unknown;
  rejectedErrors?: unknown;
  response?: unknown;
}

function addresses(list: unknown): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.map((a) => (typeof a === "string" ? a : String((a as { address?: unknown }).address)));
}

/**
 * A MailTransport over any nodemailer transporter: SMTP (pooled or not), sendmail, SES, stream.
 * Errors become TransportErrors that say whether trying again can help, with each refused
 * recipient's reply (see classify.ts). Mail with `dkim` is signed in the transporter's own
 * pipeline by a "stream" plugin installed once on it (signing-plugin.ts; it leaves other mail
 * alone); a stand-in without plugins gets it composed and signed, as `raw`.
 */
export function nodemailerTransport(
  transporter: NodemailerTransporter,
  options: NodemailerTransportOptions = {},
): MailTransport {
  const status = options.reports ?? "sent";
  let closed = false;
  const threads = checkedSigningThreads(options.signingThreads);
  const signsInTransporter = signsInPipeline(transporter);
  const mailOptions = async (message: OutgoingMessage) =>
    message.dkim && signsInTransporter
      ? toBeSigned(unsignedMailOptions(message), message.dkim, threads)
      : toMailOptions(message, threads);
  return {
    name: options.name ?? "nodemailer",
    async send(message: OutgoingMessage): Promise<TransportResult> {
      let info: SentInfo;
      try {
        info = ((await transporter.sendMail(await mailOptions(message))) ?? {}) as SentInfo;
      } catch (error) {
        throw signingFailureIn(error) ?? classifyError(error);
      }
      const returned = typeof info.messageId === "string" ? info.messageId : undefined;
      const result: TransportResult = {
        status,
        messageId: message.messageId,
        accepted: addresses(info.accepted) ?? [...message.recipients],
        rejected: rejectionsOf(info.rejectedErrors),
      };
      if (typeof info.response === "string") result.response = info.response;
      else if (Buffer.isBuffer(info.response)) result.response = info.response.toString("utf8");
      const providerId = providerMessageIdOf(message.messageId, returned, result.response);
      if (providerId !== undefined) result.providerMessageId = providerId;
      return result;
    },
    async close() {
      if (closed || !options.closeTransporter) return;
      closed = true;
      transporter.close?.();
    },
  };
}
