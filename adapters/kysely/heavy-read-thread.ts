import { resolve } from "node:path";
import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../src/module-worker.js";
import { type ErrorCode, type ErrorDetail, FlagpostError } from "../../src/errors.js";
import type {
  EventFilter,
  EventKey,
  EventRecord,
  ExperimentQuery,
  ExperimentTotals,
} from "../../src/ports/storage/index.js";
import type { HeavyReader } from "./heavy-reads.js";

export interface HeavyReadWorkerData {
  file: string;
  busyTimeoutMs: number;
}

export type HeavyReadRequest =
  | { id: number; op: "experimentTotals"; query: ExperimentQuery }
  | { id: number; op: "queryEvents"; filter: EventFilter; after: EventKey | undefined; limit: number };

export type HeavyReadReply =
  | { id: number; ok: true; value: ExperimentTotals | EventRecord[] }
  | { id: number; ok: false; code?: ErrorCode; message: string; details?: ErrorDetail[] | undefined };

/** A request before it is numbered (Omit over each member of the union, not over the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, "id"> : never;

type Pending = { resolve(value: unknown): void; reject(error: unknown): void };

/** How long the thread's read waits for a checkpoint or another connection's lock (as the main connection). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * SQLite's heavy reads in a worker thread with its own read-only connection to `file`, so a scan of a
 * million events leaves the event loop free for evaluation and ingestion. One thread: its reads run
 * one after another (the HTTP layer lets each key run 2 at once); a thread that dies fails the reads
 * in flight with `unavailable`, and the next read starts a new one.
 */
export function sqliteHeavyReadThread(file: string): HeavyReader {
  const data: HeavyReadWorkerData = { file: resolve(file), busyTimeoutMs: BUSY_TIMEOUT_MS };
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let nextId = 0;
  let closed = false;

  const failAll = (error: Error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };

  const start = (): Worker => {
    const started = startModuleWorker(import.meta.url, "heavy-read-worker", { workerData: data });
    // Idle, the thread must not keep the process alive; a read in flight refs it (see run).
    started.unref();
    started.on("message", (reply: HeavyReadReply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if (reply.ok) waiting.resolve(reply.value);
      else if (reply.code) waiting.reject(new FlagpostError(reply.code, reply.message, { details: reply.details }));
      else waiting.reject(new Error(reply.message));
    });
    const lost = (reason: string) => {
      if (worker === started) worker = undefined;
      failAll(new FlagpostError("unavailable", `The SQLite heavy-read thread stopped (${reason}); retry the request`));
    };
    started.on("error", (error) => lost(error.message));
    started.on("exit", (code) => lost(`exit code ${code}`));
    return started;
  };

  const run = <T>(request: Unnumbered<HeavyReadRequest>): Promise<T> => {
    if (closed) return Promise.reject(new FlagpostError("unavailable", "The storage is closed"));
    worker ??= start();
    const id = nextId++;
    const target = worker;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      target.ref();
      target.postMessage({ ...request, id });
    });
  };

  return {
    experimentTotals: (query) => run<ExperimentTotals>({ op: "experimentTotals", query }),
    queryEvents: (filter, after, limit) => run<EventRecord[]>({ op: "queryEvents", filter, after, limit }),
    async close() {
      closed = true;
      const stopping = worker;
      worker = undefined;
      failAll(new FlagpostError("unavailable", "The storage is closed"));
      await stopping?.terminate();
    },
  };
}
