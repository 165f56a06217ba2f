import { setTimeout as delay } from "node:timers/promises";
import { API_KEY } from "./serve.js";

/**
 * The client side of the long suites: requests that each carry an Idempotency-Key, sent with a
 * fixed number in flight, and retried with the same key until one is answered 2xx — through
 * kill -9, restarts and refused connections — as a careful client of the API would.
 */

export interface Job {
  readonly kind: "email" | "event";
  /** Index within its kind: the email's subject and the event's `properties.seq` carry it. */
  readonly index: number;
  readonly path: "/v1/emails" | "/v1/events";
  readonly body: string;
  readonly idempotencyKey: string;
}

export interface Outcome {
  readonly job: Job;
  /** The id the 2xx answer gave. */
  readonly id: string;
  readonly status: number;
  /** Date.now() when the 2xx answer arrived. */
  readonly acceptedAt: number;
  /** Attempts that ended without an answer (connection refused or reset: the server was killed). */
  readonly interrupted: number;
  /** Attempts answered 409 (the same key still in flight) or 503. */
  readonly refused: number;
}

export function emailJob(index: number, run: string): Job {
  return {
    kind: "email",
    index,
    path: "/v1/emails",
    idempotencyKey: `${run}-email-${index}`,
    body: JSON.stringify({
      from: "Shop <orders@example.com>",
      to: `customer${index}@example.org`,
      subject: `Order ${index}`,
      text: `Thanks for order ${index}`,
    }),
  };
}

export function eventJob(index: number, run: string): Job {
  return {
    kind: "event",
    index,
    path: "/v1/events",
    idempotencyKey: `${run}-event-${index}`,
    body: JSON.stringify({ event: "reliability.tick", userId: `user-${index % 500}`, properties: { seq: index } }),
  };
}

/** Where a request goes now: waits while no server is up. `failed` reports a server that did not answer. */
export interface Target {
  next(): Promise<string>;
  failed(url: string): void;
}

/** Answers that mean "try again with the same key": the key in flight elsewhere, a full body budget. */
const RETRYABLE = new Set([409, 503]);

async function deliver(job: Job, target: Target, deadline: number): Promise<Outcome> {
  let interrupted = 0;
  let refused = 0;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`${job.kind} ${job.index} not accepted before the deadline`);
    const url = await target.next();
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${url}${job.path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${API_KEY}`,
          "content-type": "application/json",
          "idempotency-key": job.idempotencyKey,
        },
        body: job.body,
        signal: AbortSignal.timeout(60_000),
      });
      text = await response.text();
    } catch {
      interrupted += 1;
      target.failed(url);
      await delay(20);
      continue;
    }
    if (response.status >= 200 && response.status < 300) {
      const parsed = JSON.parse(text) as { id?: string; data?: { id: string } };
      return {
        job,
        id: parsed.id ?? parsed.data!.id,
        status: response.status,
        acceptedAt: Date.now(),
        interrupted,
        refused,
      };
    }
    if (!RETRYABLE.has(response.status))
      throw new Error(`${job.kind} ${job.index}: unexpected ${response.status} ${text.slice(0, 300)}`);
    refused += 1;
    await delay(100);
  }
}

/**
 * Sends every job with `concurrency` in flight until each is accepted; `onAccepted` runs after
 * each acceptance (the crash suite kills the server from there). Rejects on any answer that is
 * neither 2xx nor retryable, or when `budgetMs` runs out.
 */
export async function sendAll(
  jobs: readonly Job[],
  concurrency: number,
  target: Target,
  budgetMs: number,
  onAccepted: (outcome: Outcome, accepted: number) => void = () => undefined,
): Promise<Outcome[]> {
  const deadline = Date.now() + budgetMs;
  const outcomes: Outcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const outcome = await deliver(job, target, deadline);
      outcomes.push(outcome);
      onAccepted(outcome, outcomes.length);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}
