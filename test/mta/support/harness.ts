import { setTimeout as delay } from "node:timers/promises";
import { Resend } from "resend";
import { createTestDatabase, type Backend, type TestDatabase } from "../../support/databases.js";
import { type Delivery, type Receiver, startReceiver } from "../../webhooks/support/receiver.js";
import { freePorts, type PostfixInstance, startPostfix } from "./postfix.js";
import { API_KEY, type Served, startServe } from "./serve.js";

/**
 * One run of the real-MTA suite on one database: the test's Postfix, `flagpost serve` relaying
 * through it, a webhook receiver, and the waits every scenario uses. Each wait is bounded and,
 * when it runs out, says what the email went through and what Postfix logged.
 */

/** The size Postfix lets a mailbox file reach (virtual_mailbox_limit in test/mta/postfix/main.cf). */
const MAILBOX_LIMIT = 102_400;
const POLL_MS = 500;

export interface EmailView {
  id: string;
  status: string;
  last_event?: string;
  message_id?: string;
}

export interface Stack {
  readonly postfix: PostfixInstance;
  readonly serve: Served;
  readonly receiver: Receiver;
  readonly resend: Resend;
  /** The email as `GET /v1/emails/{id}` answers it. */
  email(id: string): Promise<EmailView>;
  /** `GET /v1/suppressions/{address}`: the entry, or undefined on 404. */
  suppression(address: string): Promise<{ email: string; origin: string; source_id: string | null } | undefined>;
  /** Waits until the email has `status`; fails at once on another final status. */
  untilStatus(id: string, status: string, since: number, boundMs: number): Promise<EmailView>;
  /** Waits until a webhook of `type` about the email arrived; answers every such delivery. */
  untilWebhook(id: string, type: string, since: number, boundMs: number): Promise<Delivery[]>;
  /** Waits until `probe` answers something other than undefined. */
  until<T>(what: string, since: number, boundMs: number, probe: () => Promise<T | undefined>): Promise<T>;
  /** Stops serve, Postfix and the receiver and drops the database, whatever failed before. */
  close(): Promise<void>;
}

/** A mailbox file holding one message that leaves less than 2.5 KB before the limit. */
export function nearlyFullMailbox(): string {
  const head = "From filler@mail.test Thu Jan  1 00:00:00 2026\nFrom: filler@mail.test\nSubject: filler\n\n";
  const line = `${"x".repeat(99)}\n`;
  return head + line.repeat(Math.floor((MAILBOX_LIMIT - 2_500 - head.length) / line.length));
}

/**
 * The Postfix log lines about one email: those naming its VERP address (its id), those of its
 * queue ids, and those of the notifications (DSNs) Postfix queued about it.
 */
function linesAbout(log: readonly string[], emailId: string): string[] {
  const queueIds = new Set<string>();
  const remember = (line: string) => {
    const own = /: ([0-9A-F]{6,}): /.exec(line)?.[1];
    const notice = /: sender [a-z -]*notification: ([0-9A-F]{6,})/.exec(line)?.[1];
    let added = false;
    for (const q of [own, notice]) {
      if (q === undefined || queueIds.has(q)) continue;
      queueIds.add(q);
      added = true;
    }
    return added;
  };
  for (const line of log) if (line.includes(emailId)) remember(line);
  // Notifications are found through the lines of the queue ids found before them.
  for (let changed = true; changed;) {
    changed = false;
    for (const line of log) if ([...queueIds].some((q) => line.includes(q)) && remember(line)) changed = true;
  }
  return log.filter((line) => line.includes(emailId) || [...queueIds].some((q) => line.includes(`: ${q}`)));
}

const FINAL = new Set(["bounced", "failed", "canceled", "complained"]);

export async function startStack(backend: Backend): Promise<Stack> {
  const [smtp, hop2, inbound, closed] = (await freePorts(4)) as [number, number, number, number];
  const opened: (() => Promise<unknown>)[] = [];
  const close = async () => {
    // Each part stops even when another fails to; the first failure is then reported.
    const results = await Promise.allSettled(opened.reverse().map((stop) => stop()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  try {
    const database: TestDatabase = await createTestDatabase(backend);
    opened.push(() => database.drop());
    const receiver = await startReceiver();
    opened.push(() => receiver.close());
    const postfix = await startPostfix({ smtp, hop2, inbound, closed }, { full: nearlyFullMailbox() });
    opened.push(() => postfix.stop());
    const serve = await startServe({ database: database.url, smtpPort: smtp, inboundPort: inbound });
    opened.push(() => serve.stop());
    return stack(postfix, serve, receiver, close);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

function stack(postfix: PostfixInstance, serve: Served, receiver: Receiver, close: () => Promise<void>): Stack {
  const resend = new Resend(API_KEY, { baseUrl: `${serve.url}/v1` });
  const email = async (id: string) => {
    const { status, body } = await serve.api<EmailView>("GET", `/v1/emails/${id}`);
    if (status !== 200) throw new Error(`GET /v1/emails/${id} answered ${status}`);
    return body;
  };
  const events = async (id: string) =>
    JSON.stringify((await serve.api("GET", `/v1/emails/${id}/events`)).body.data ?? []);
  const explain = async (what: string, since: number, id?: string) => {
    const log = (await postfix.log()).split("\n");
    const about = id === undefined ? [] : linesAbout(log, id);
    const seconds = ((Date.now() - since) / 1000).toFixed(1);
    return [
      `${what}: not reached after ${seconds} s`,
      id === undefined ? "" : `events of ${id}: ${await events(id).catch((e: unknown) => String(e))}`,
      about.length > 0
        ? `Postfix log about this email and its notifications:\n${about.slice(-60).join("\n")}`
        : `Postfix log (last 40 lines):\n${log.slice(-40).join("\n")}`,
      `flagpost serve (last 3000 characters):\n${serve.output().slice(-3000)}`,
    ].join("\n");
  };
  const until = async <T>(
    what: string,
    since: number,
    boundMs: number,
    probe: () => Promise<T | undefined>,
    id?: string,
  ): Promise<T> => {
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() - since > boundMs) throw new Error(await explain(what, since, id));
      await delay(POLL_MS);
    }
  };
  return {
    postfix,
    serve,
    receiver,
    resend,
    email,
    async suppression(address) {
      const { status, body } = await serve.api<{ email: string; origin: string; source_id: string | null }>(
        "GET",
        `/v1/suppressions/${encodeURIComponent(address)}`,
      );
      if (status === 404) return undefined;
      if (status !== 200) throw new Error(`GET /v1/suppressions/${address} answered ${status}`);
      return body;
    },
    until: (what, since, boundMs, probe) => until(what, since, boundMs, probe),
    untilStatus: (id, status, since, boundMs) =>
      until(
        `email ${id} ${status} within ${boundMs / 1000} s`,
        since,
        boundMs,
        async () => {
          const view = await email(id);
          if (view.status === status) return view;
          const final = FINAL.has(view.status) || (view.status === "delivered" && status !== "complained");
          if (final) throw new Error(`${await explain(`email ${id} ${status}`, since, id)}\nit became ${view.status}`);
          return undefined;
        },
        id,
      ),
    untilWebhook: (id, type, since, boundMs) =>
      until(
        `webhook ${type} for ${id} within ${boundMs / 1000} s`,
        since,
        boundMs,
        async () => {
          const found = receiver.received.filter((d) => d.payload.type === type && d.payload.data.email_id === id);
          return found.length > 0 ? found : undefined;
        },
        id,
      ),
    close,
  };
}
