import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * A real SMTP server on 127.0.0.1 (ephemeral port) for tests: it answers each RCPT TO and each
 * DATA as the test says (250, 4xx, 5xx), can hold its DATA reply until released, and keeps every
 * message it received, parsed, with its envelope.
 */

export interface Reply {
  code: number;
  message?: string;
}

/** What the client asked for with RFC 3461 (DSN) parameters, as smtp-server parsed them. */
export interface DsnRequest {
  /** MAIL FROM's RET= and ENVID=. */
  ret?: string;
  envid?: string;
  /** Each RCPT TO's NOTIFY= and ORCPT=, by address. */
  recipients: { address: string; notify?: string[]; orcpt?: string }[];
}

export interface ReceivedMessage {
  envelope: { from: string; to: string[]; dsn: DsnRequest };
  raw: Buffer;
  parsed: ParsedMail;
  messageId: string | undefined;
}

export interface SmtpSink {
  readonly port: number;
  /** smtp://127.0.0.1:port */
  readonly url: string;
  readonly received: ReceivedMessage[];
  /** How each recipient is answered; undefined accepts. `attempt` counts RCPTs of that address from 1. */
  onRecipient: (address: string, attempt: number) => Reply | undefined;
  /**
   * How a message is answered once its data arrived; undefined accepts with smtp-server's reply,
   * a code below 400 accepts with `250 <message>` (a relay's "queued as …").
   */
  onData: (message: ReceivedMessage) => Reply | undefined;
  /**
   * Holds every DATA reply until the returned function is called (the message is recorded as
   * received when its data has arrived, before the reply). Resolves `arrived` per message.
   */
  hold(): { release(): void; arrived(count: number): Promise<void> };
  /** Resolves once `count` messages have been received in all. */
  waitFor(count: number): Promise<void>;
  /** Resolves once every message whose data has arrived is parsed and recorded. */
  settled(): Promise<void>;
  /**
   * Resolves once no client is connected and every message is recorded: after a client was
   * killed, everything it managed to deliver is in `received`.
   */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function replyError(reply: Reply): Error {
  const error = new Error(reply.message ?? (reply.code >= 500 ? "Refused" : "Try again later")) as Error & {
    responseCode: number;
  };
  error.responseCode = reply.code;
  return error;
}

export interface SmtpSinkOptions {
  /** Do not offer DSN in the EHLO answer (as many servers do not). */
  hideDSN?: boolean;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const received: ReceivedMessage[] = [];
  const rcptCounts = new Map<string, number>();
  const waiters: { count: number; resolve: () => void }[] = [];
  let held: { gates: (() => void)[]; released: boolean } | undefined;
  const parsing = new Set<Promise<void>>();
  let connections = 0;
  let idleWaiters: (() => void)[] = [];

  const notify = () => {
    for (const w of [...waiters]) {
      if (received.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };

  const sink: SmtpSink = {
    port: 0,
    url: "",
    received,
    onRecipient: () => undefined,
    onData: () => undefined,
    hold() {
      const state = { gates: [] as (() => void)[], released: false };
      held = state;
      return {
        release() {
          state.released = true;
          if (held === state) held = undefined;
          for (const gate of state.gates.splice(0)) gate();
        },
        arrived: (count) => sink.waitFor(count),
      };
    },
    waitFor(count) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push({ count, resolve });
      });
    },
    async settled() {
      while (parsing.size > 0) await Promise.all([...parsing]);
    },
    async idle() {
      if (connections > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      await sink.settled();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    disableReverseLookup: true,
    size: 64 * 1024 * 1024,
    hideDSN: options.hideDSN ?? false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onClose() {
      connections -= 1;
      if (connections === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    },
    onRcptTo(address, _session, callback) {
      const key = address.address.toLowerCase();
      const attempt = (rcptCounts.get(key) ?? 0) + 1;
      rcptCounts.set(key, attempt);
      const reply = sink.onRecipient(key, attempt);
      callback(reply && reply.code >= 400 ? replyError(reply) : null);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        const parse = simpleParser(raw).then((parsed) => {
          const message: ReceivedMessage = {
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
              to: session.envelope.rcptTo.map((r) => r.address),
              dsn: dsnOf(session.envelope),
            },
            raw,
            parsed,
            messageId: parsed.messageId,
          };
          const reply = sink.onData(message);
          const answer = () =>
            reply && reply.code >= 400 ? callback(replyError(reply)) : callback(null, reply?.message);
          if (!reply || reply.code < 400) {
            received.push(message);
            notify();
          }
          const gate = held;
          if (gate && !gate.released) gate.gates.push(answer);
          else answer();
        });
        parsing.add(parse);
        void parse.finally(() => parsing.delete(parse));
      });
    },
  });
  server.on("error", () => undefined); // a client that vanished mid-session is not the test's failure

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  Object.assign(sink, { port, url: `smtp://127.0.0.1:${port}` });
  return sink;
}

interface SessionEnvelope {
  dsn?: { ret?: string | null; envid?: string | null };
  rcptTo: { address: string; dsn?: { notify?: string[]; orcpt?: string } }[];
}

function dsnOf(envelope: SessionEnvelope): DsnRequest {
  const request: DsnRequest = { recipients: [] };
  if (envelope.dsn?.ret) request.ret = envelope.dsn.ret;
  if (envelope.dsn?.envid) request.envid = envelope.dsn.envid;
  for (const rcpt of envelope.rcptTo) {
    const entry: DsnRequest["recipients"][number] = { address: rcpt.address };
    if (rcpt.dsn?.notify) entry.notify = rcpt.dsn.notify;
    if (rcpt.dsn?.orcpt) entry.orcpt = rcpt.dsn.orcpt;
    request.recipients.push(entry);
  }
  return request;
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
