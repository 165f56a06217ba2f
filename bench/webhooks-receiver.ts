import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serveCalls } from "./lib/child.js";
import { percentile } from "./lib/stats.js";

/**
 * bench:webhooks' receiver, in a process of its own pinned to the other core: node:http on
 * 127.0.0.1 that reads each POST, answers 200 "ok", and keeps only a count, the last arrival, the
 * webhook-ids seen (to count duplicates) and, per delivery, how long after its `created_at` (the
 * causing change) it arrived. No signature check: the receiver must not be what limits the rate.
 */

/** Wall-clock milliseconds, comparable across processes on this machine. */
const now = () => performance.timeOrigin + performance.now();

let received = 0;
let lastAt = 0;
const ids = new Map<string, number>();
let delays: number[] = [];
let waiters: { count: number; resolve: (at: number) => void }[] = [];

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", () => {
    const at = now();
    received += 1;
    lastAt = at;
    const id = request.headers["webhook-id"];
    if (typeof id === "string") ids.set(id, (ids.get(id) ?? 0) + 1);
    const createdAt = /"created_at":"([^"]+)"/.exec(Buffer.concat(chunks).toString("utf8"))?.[1];
    if (createdAt !== undefined) delays.push(at - Date.parse(createdAt));
    response.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (waiters.length > 0) {
      const done = waiters.filter((w) => received >= w.count);
      waiters = waiters.filter((w) => received < w.count);
      for (const w of done) w.resolve(lastAt);
    }
  });
});
server.keepAliveTimeout = 30_000;

const listening = new Promise<{ port: number }>((resolve) => {
  server.listen(0, "127.0.0.1", () => resolve({ port: (server.address() as AddressInfo).port }));
});

serveCalls(
  {
    reset: () => {
      received = 0;
      lastAt = 0;
      ids.clear();
      delays = [];
    },
    /** Resolves with the arrival time (epoch ms) of the `count`-th delivery since the last reset. */
    waitFor: (count: number) =>
      received >= count ? lastAt : new Promise<number>((resolve) => waiters.push({ count, resolve })),
    stats: () => ({
      received,
      distinct: ids.size,
      duplicates: [...ids.values()].filter((n) => n > 1).length,
    }),
    /** From each delivery's `created_at` to its arrival, in ms. */
    delays: () => {
      const sorted = [...delays].sort((a, b) => a - b);
      return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  },
  listening,
);
