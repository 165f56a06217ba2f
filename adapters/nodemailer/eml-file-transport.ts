import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import nodemailer from "nodemailer";
import {
  type MailTransport,
  type OutgoingMessage,
  TransportError,
  type TransportResult,
} from "../../src/ports/transport.js";
import { toMailOptions } from "./mail-options.js";
import { checkedSigningThreads } from "./signing-place.js";

export interface EmlFileTransportOptions {
  /** Where the files go; created when missing. */
  directory: string;
  /** Called after each file is written (the CLI logs the path). */
  onWritten?: (file: string, message: OutgoingMessage, recipients: string[]) => void;
  /** How many worker threads may DKIM-sign at once, as for nodemailerTransport (0: none). */
  signingThreads?: number;
}

/**
 * A development transport: writes each message, exactly as it would go over SMTP (CRLF line
 * ends, no Bcc header), to `<directory>/<email id>.eml`, which any mail client opens. The
 * envelope recipients (Bcc included) go to `onWritten`. Reports `delivered`: the file is the
 * final stop. Writing again after a crash replaces the file, so an email leaves one file.
 */
export function emlFileTransport(options: EmlFileTransportOptions): MailTransport {
  const directory = resolve(options.directory);
  const threads = checkedSigningThreads(options.signingThreads);
  // nodemailer's stream transport builds the message as SMTP would send it (CRLF line ends).
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  let made: Promise<unknown> | undefined;
  return {
    name: "eml-file",
    async send(message: OutgoingMessage): Promise<TransportResult> {
      const recipients = message.recipients;
      const file = join(directory, `${message.id}.eml`);
      try {
        // The stream transport keeps a Bcc header (it has no envelope of its own): Bcc recipients
        // go into an explicit envelope instead, so the file holds what recipients would see.
        const { bcc: _bcc, ...mail } = await toMailOptions(message, threads);
        const info = await composer.sendMail({
          ...mail,
          envelope: { from: message.envelope?.from ?? message.from.address, to: recipients },
        });
        const raw = info.message as Buffer;
        made ??= mkdir(directory, { recursive: true });
        await made.catch(() => {
          made = undefined; // try again next time (the directory may be created meanwhile)
        });
        const partial = `${file}.${process.pid}.tmp`;
        await writeFile(partial, raw);
        await rename(partial, file);
      } catch (error) {
        if (error instanceof TransportError) throw error; // the message could not be signed
        const code = (error as { code?: unknown }).code;
        throw new TransportError(
          "transient",
          `could not write ${file}${typeof code === "string" ? ` (${code})` : ""}`,
          { cause: error },
        );
      }
      options.onWritten?.(file, message, recipients);
      return { status: "delivered", messageId: message.messageId, accepted: recipients, rejected: [], response: file };
    },
  };
}
