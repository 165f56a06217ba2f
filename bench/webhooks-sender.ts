import { sql } from "kysely";
import { createFlagpost, type Flagpost } from "flagpost";
import { kyselyStorage } from "flagpost/kysely";
import { serveCalls } from "./lib/child.js";
import { type FreshDatabase, freshDatabase } from "./lib/fresh-database.js";
import { silentLogger } from "./lib/silent-logger.js";

/**
 * bench:webhooks' sending side, in a process of its own pinned to one core: either a bare `fetch`
 * loop POSTing a body of the same size to the receiver (the floor), or flagpost on a fresh SQLite
 * file or PostgreSQL schema: flag changes → stored deliveries → the delivery worker → the receiver.
 */

export interface Setup {
  engine: "sqlite" | "postgres";
  pgUrl?: string;
  port: number;
}

/** Wall-clock milliseconds, comparable across processes on this machine. */
const now = () => performance.timeOrigin + performance.now();
const CONCURRENCY = 10;

let open: { fp: Flagpost; database: FreshDatabase; webhookId: string; next: number } | undefined;

function current() {
  if (!open) throw new Error("no flagpost is open: call prepare first");
  return open;
}

/** A body shaped as a flag.created delivery, for the floor. */
function floorBody(i: number): string {
  const at = new Date().toISOString();
  const flag = {
    id: `0198${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`,
    key: `bench-${i}`,
    description: "",
    enabled: false,
    rules: [],
    variants: [],
    createdAt: at,
    updatedAt: at,
  };
  return JSON.stringify({ type: "flag.created", created_at: at, data: flag });
}

/** The floor: `count` POSTs with CONCURRENCY loops of bare fetch. Returns when it started. */
async function floor(port: number, count: number): Promise<number> {
  const startedAt = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const response = await fetch(`http://127.0.0.1:${port}/hook`, {
          method: "POST",
          headers: { "content-type": "application/json", "webhook-id": `floor-${i}` },
          body: floorBody(i),
        });
        await response.arrayBuffer();
      }
    }),
  );
  return startedAt;
}

/** A fresh flagpost (worker stopped) with one endpoint subscribed to flag.created. */
async function prepare(setup: Setup): Promise<void> {
  const database = await freshDatabase(setup.engine, setup.pgUrl);
  const fp = createFlagpost({
    storage: kyselyStorage(database.db, { destroyOnClose: true }),
    logger: silentLogger,
    webhooks: { allowPrivateNetworks: true, autoStart: false, concurrency: CONCURRENCY },
  });
  await fp.ready();
  const hook = await fp.webhooks.create({ endpoint: `http://127.0.0.1:${setup.port}/hook`, events: ["flag.created"] });
  open = { fp, database, webhookId: hook.id, next: 0 };
}

/** Stores `count` changes (each a delivery) while the worker is stopped. */
async function store(count: number): Promise<void> {
  const o = current();
  for (let i = 0; i < count; i++) await o.fp.flags.create({ key: `bench-${o.next++}` });
}

/** Starts the worker over what is stored; returns when. */
function drain(): number {
  const startedAt = now();
  current().fp.webhooks.worker.start();
  return startedAt;
}

/** With the worker running, one change every `intervalMs`, `count` of them (the latency run). */
async function paced(count: number, intervalMs: number): Promise<void> {
  const o = current();
  o.fp.webhooks.worker.start();
  for (let i = 0; i < count; i++) {
    const due = now() + intervalMs;
    await o.fp.flags.create({ key: `paced-${o.next++}` });
    const wait = due - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Waits until every delivery is recorded, then closes; answers the delivery statuses. */
async function finish(count: number): Promise<Record<string, number>> {
  if (!open) return {};
  const { fp, database } = open;
  open = undefined;
  try {
    const statuses = async () => {
      const { rows } = await sql<{ status: string; n: number | string }>`
        select status, count(*) as n from flagpost_webhook_deliveries group by status`.execute(database.db);
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    };
    const deadline = performance.now() + 60_000;
    let counts = await statuses();
    while ((counts.success ?? 0) < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      counts = await statuses();
    }
    return counts;
  } finally {
    await fp.close();
    await database.cleanup();
  }
}

serveCalls({
  floor: (port: number, count: number) => floor(port, count),
  prepare,
  store,
  drain,
  paced,
  finish,
  close: () => finish(0),
});
