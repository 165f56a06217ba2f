import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { asLogger, errorFields, type Logger, silentLogger } from "../../src/ports/logger.js";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { ReportParser } from "../../src/ports/report-parser.js";
import { mailReportParser } from "./report-parser.js";

/**
 * The inbound SMTP listener: where DSNs and feedback reports addressed to the bounce domain
 * arrive (straight from the internet, or passed on by the app's own MTA). It is a mailbox, not a
 * relay: it never sends or forwards anything, refuses recipients outside its domains, parses every
 * message it accepts here (with `parser`, mailReportParser() by default) and hands the reports it
 * holds to `apply` — `(reports) => fp.emails.applyReports(reports)`: the core gets reports, never
 * bytes. An app that keeps the raw messages itself (an archive, a queue) passes `ingest` instead.
 * A message that reports nothing flagpost knows is still answered 250: a sender told "no" would
 * only retry or bounce the bounce. Only a failure to store (storage down) answers 451, so the
 * sender retries.
 */
export type InboundSmtpOptions = InboundSmtpSettings & (ApplyReportsOption | IngestOption);

interface ApplyReportsOption {
  /** Applies the reports of one message (`[]` for a message that is no report); `flagpost serve` passes `fp.emails.applyReports`. */
  apply(reports: DeliveryReport[]): Promise<unknown>;
  /** Reads each message into reports; mailReportParser() by default. */
  parser?: ReportParser;
  ingest?: never;
}

interface IngestOption {
  /** Takes each whole message as received, with its `Delivered-To` lines, instead of parsing it here. */
  ingest(raw: Buffer): Promise<unknown>;
  apply?: never;
  parser?: never;
}

interface InboundSmtpSettings {
  /** Default 127.0.0.1: put the MTA that receives the bounce domain's mail in front. */
  host?: string;
  /** Default 0 (a free port; read it from the result). */
  port?: number;
  /** Largest message in bytes (announced with SIZE, refused with 552 past it). Default 10 MiB. */
  maxBytes?: number;
  /** Recipient domains accepted (the bounce domain); empty or absent accepts any domain. */
  domains?: string[];
  /** Most recipients of one message. Default 50. */
  maxRecipients?: number;
  /** Most connections at once. Default 50. */
  maxClients?: number;
  /**
   * Most connections at once from one client address (421 beyond). Default 10, so one host
   * cannot hold every slot. Put the listener behind your MTA and every connection comes from it:
   * raise this to `maxClients` then.
   */
  maxClientsPerAddress?: number;
  /**
   * How long one session may last in all, however busy (421 and closed after). Default 2 min: the
   * idle timeout alone is reset by every byte, so a client trickling a byte every few seconds
   * would otherwise keep its slot for ever.
   */
  sessionTimeoutMs?: number;
  logger?: Logger;
}

export interface InboundSmtp {
  readonly host: string;
  readonly port: number;
  /** Stops accepting, lets sessions end (at most 5 s), and waits for messages still being ingested. */
  close(): Promise<void>;
}

export const DEFAULT_INBOUND_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_SESSION_TIMEOUT_MS = 2 * 60 * 1000;
/** How long a session told 421 at its deadline has to leave before its socket is destroyed. */
const DEADLINE_GRACE_MS = 1_000;

type SmtpError = Error & { responseCode: number };

function smtpError(code: number, message: string): SmtpError {
  return Object.assign(new Error(message), { responseCode: code });
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}

/**
 * The message as a mailbox would store it: one `Delivered-To` line per envelope recipient on top
 * (as Postfix's local delivery writes it), so the VERP address survives into the parser even when
 * the report's own headers do not name it.
 */
function withDeliveredTo(session: SMTPServerSession, message: Buffer): Buffer {
  const lines = session.envelope.rcptTo.map((rcpt) => `Delivered-To: ${rcpt.address}\r\n`).join("");
  return Buffer.concat([Buffer.from(lines, "utf8"), message]);
}

/** What the listener does with one accepted message: parse and apply, or hand the bytes on. */
function takerOf(options: InboundSmtpOptions): (raw: Buffer) => Promise<unknown> {
  if (options.ingest) return options.ingest;
  const parser = options.parser ?? mailReportParser();
  const apply = options.apply;
  return async (raw) => apply(await parser.parse(raw));
}

export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtp> {
  const take = takerOf(options);
  const host = options.host ?? "127.0.0.1";
  const maxBytes = options.maxBytes ?? DEFAULT_INBOUND_MAX_BYTES;
  const domains = new Set((options.domains ?? []).map((d) => d.trim().toLowerCase()).filter((d) => d !== ""));
  const maxRecipients = options.maxRecipients ?? 50;
  const logger = options.logger ? asLogger(options.logger) : silentLogger;
  const ingesting = new Set<Promise<unknown>>();
  const perAddressLimit = options.maxClientsPerAddress ?? 10;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  /** Connections counted per client address, and the address of each counted session. */
  const perAddress = new Map<string, number>();
  const counted = new Map<string, string>();

  const receive = (
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (error?: Error | null) => void,
  ) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on("error", () => callback(smtpError(451, "4.3.0 The message could not be read; try again later")));
    stream.on("end", () => {
      if (stream.sizeExceeded || size > maxBytes) {
        callback(smtpError(552, `5.3.4 Message larger than ${maxBytes} bytes`));
        return;
      }
      const ingest = take(withDeliveredTo(session, Buffer.concat(chunks, size))).then(
        () => callback(null),
        (error: unknown) => {
          logger.error("inbound report not stored", { ...errorFields(error) });
          callback(smtpError(451, "4.3.0 The report could not be stored; try again later"));
        },
      );
      ingesting.add(ingest);
      void ingest.finally(() => ingesting.delete(ingest));
    });
  };

  const server = new SMTPServer({
    banner: "flagpost delivery report receiver",
    size: maxBytes,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    maxClients: options.maxClients ?? 50,
    socketTimeout: 60_000,
    closeTimeout: 5_000,
    onConnect(session, callback) {
      const from = session.remoteAddress;
      const open = perAddress.get(from) ?? 0;
      if (open >= perAddressLimit) {
        callback(smtpError(421, "4.7.0 Too many connections from your address; try again later"));
        return;
      }
      perAddress.set(from, open + 1);
      counted.set(session.id, from);
      callback();
    },
    onClose(session) {
      const from = counted.get(session.id);
      if (from === undefined) return; // refused before it was counted
      counted.delete(session.id);
      const open = (perAddress.get(from) ?? 1) - 1;
      if (open > 0) perAddress.set(from, open);
      else perAddress.delete(from);
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= maxRecipients) {
        callback(smtpError(452, "4.5.3 Too many recipients"));
      } else if (!address.address.includes("@")) {
        callback(smtpError(550, "5.1.3 A recipient needs a domain"));
      } else if (domains.size > 0 && !domains.has(domainOf(address.address))) {
        // Not ours: this server relays nothing, for anybody.
        callback(smtpError(550, "5.7.1 Relaying denied: this server only takes delivery reports"));
      } else {
        callback();
      }
    },
    onData: receive,
  });
  server.on("error", (error) => logger.warn("inbound smtp session failed", { ...errorFields(error) }));
  const inner = (server as unknown as { server: import("node:net").Server }).server;
  // The whole-session deadline, on the socket itself: nothing the client does extends it.
  inner.on("connection", (socket: import("node:net").Socket) => {
    const deadline = setTimeout(() => {
      if (!socket.writable) return;
      socket.end("421 4.4.2 Session time limit reached, closing connection\r\n");
      setTimeout(() => socket.destroy(), DEADLINE_GRACE_MS).unref();
    }, sessionTimeoutMs);
    deadline.unref();
    socket.once("close", () => clearTimeout(deadline));
  });

  await new Promise<void>((resolve, reject) => {
    inner.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      inner.off("error", reject);
      resolve();
    });
  });
  const address = inner.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        while (ingesting.size > 0) await Promise.allSettled([...ingesting]);
      })();
      return closing;
    },
  };
}
