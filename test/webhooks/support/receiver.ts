import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Resend } from "resend";
import { Webhook } from "standardwebhooks";

/**
 * A real webhook receiver on 127.0.0.1: records every request, answers as the test says, and
 * checks each delivery on arrival (when a receiver would, so the timestamp tolerance applies to
 * the moment it was signed) with both verifiers users run: the resend SDK's `webhooks.verify` and
 * the `standardwebhooks` package, against every secret the test names.
 */

export interface Delivery {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: { type: string; created_at: string; data: Record<string, unknown> };
  /** Per secret given (in order): whether the resend SDK and standardwebhooks accepted the delivery. */
  verified: { resend: boolean; standard: boolean }[];
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  port: number;
  received: Delivery[];
  /** Secrets each delivery is checked against (set it after creating the endpoint). */
  secrets: string[];
  /** How to answer; default 200. `nth` is 1 for the first request carrying this webhook-id. */
  answer: (delivery: Delivery, nth: number) => Answer | Promise<Answer>;
  /** Resolves once `count` requests arrived (bounded by `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

const resend = new Resend("re_test_key");

/** Whether `verify` accepts (it throws when it does not). */
function accepts(verify: () => unknown): boolean {
  try {
    verify();
    return true;
  } catch {
    return false;
  }
}

function check(secret: string, d: Omit<Delivery, "verified">): { resend: boolean; standard: boolean } {
  return {
    resend: accepts(() =>
      resend.webhooks.verify({
        payload: d.body,
        headers: { id: d.id, timestamp: d.timestamp, signature: d.signature },
        webhookSecret: secret,
      }),
    ),
    standard: accepts(() =>
      new Webhook(secret).verify(d.body, {
        "webhook-id": d.id,
        "webhook-timestamp": d.timestamp,
        "webhook-signature": d.signature,
      }),
    ),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startReceiver(): Promise<Receiver> {
  const seen = new Map<string, number>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    received: [],
    secrets: [],
    answer: () => ({ status: 200, body: "ok" }),
    async waitFor(count, timeoutMs = 10_000) {
      if (receiver.received.length < count) {
        const arrived = new Promise<void>((resolve) => waiters.push({ count, resolve }));
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${receiver.received.length} of ${count} deliveries after ${timeoutMs} ms`)),
            timeoutMs,
          );
        });
        await Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
      }
      return receiver.received;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const body = await readBody(request);
      const header = (name: string) => String(request.headers[name] ?? "");
      const base = {
        path: request.url ?? "/",
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body,
        payload: JSON.parse(body) as Delivery["payload"],
      };
      const delivery: Delivery = { ...base, verified: receiver.secrets.map((s) => check(s, base)) };
      const nth = (seen.get(delivery.id) ?? 0) + 1;
      seen.set(delivery.id, nth);
      receiver.received.push(delivery);
      for (const w of waiters.filter((x) => receiver.received.length >= x.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = await receiver.answer(delivery, nth);
      response.writeHead(answer.status, answer.headers ?? { "content-type": "text/plain" });
      response.end(answer.body ?? "");
    })().catch(() => response.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

/** Whether every delivery verified with both libraries against the secret at `index`. */
export function allVerified(deliveries: readonly Delivery[], index = 0): boolean {
  return deliveries.length > 0 && deliveries.every((d) => d.verified[index]?.resend && d.verified[index]?.standard);
}
