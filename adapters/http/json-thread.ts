import { Worker } from "node:worker_threads";

/**
 * Large request bodies decoded and parsed in a worker thread (docs/reliability.md, "Large emails
 * and other requests"). A 39 MiB email's UTF-8 decoding and JSON.parse held the event loop about
 * 40 ms on an idle core and 400 ms on a loaded machine, two bodies at a time under the body
 * budget; in the thread they cost the loop only the structured clone of the answer (a copy of its
 * strings). The bytes are moved to the thread, not copied, when the body owns its memory.
 */

/** Bodies above this many bytes are parsed in the thread; smaller ones cost the loop less than the trip. */
export const THREAD_JSON_BYTES = 1024 * 1024;

/**
 * The thread ends once it has had nothing to parse for this long, and the next large body starts
 * another (a few ms, off the loop). An idle thread keeps its heap at its high-water mark, the text
 * and values of the bodies it parsed, which it has no reason to collect: after 24 bodies of
 * 39 MiB that was part of the memory the process still held seconds later.
 */
export const JSON_THREAD_IDLE_MS = 1000;

// The thread's whole program: no imports, so it runs the same from sources and from the build.
const PROGRAM = `
const { parentPort } = require("node:worker_threads");
const utf8 = new TextDecoder("utf-8", { fatal: true });
parentPort.on("message", ({ id, bytes }) => {
  let value;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    parentPort.postMessage({ id, ok: false });
    return;
  }
  parentPort.postMessage({ id, ok: true, value });
});
`;

type Pending = { resolve(value: unknown): void; reject(error: unknown): void };

/** Thrown when the bytes are not valid UTF-8 JSON (what JSON.parse or the fatal decoder would throw). */
export class InvalidJson extends Error {}

/** A running thread and the parses it owes; a thread that ends fails only its own. */
interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

let current: Thread | undefined;
let nextId = 0;
let idleTimer: NodeJS.Timeout | undefined;

/** Ends the thread if it is still idle when the timer fires. */
function endWhenIdle(thread: Thread): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (current !== thread || thread.pending.size > 0) return;
    current = undefined;
    void thread.worker.terminate();
  }, JSON_THREAD_IDLE_MS);
  idleTimer.unref();
}

function start(): Thread {
  const thread: Thread = { worker: new Worker(PROGRAM, { eval: true }), pending: new Map() };
  const { worker, pending } = thread;
  worker.unref(); // idle, the thread does not keep the process alive; a parse in flight refs it
  worker.on("message", (reply: { id: number; ok: boolean; value?: unknown }) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (pending.size === 0) {
      worker.unref();
      endWhenIdle(thread);
    }
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(new InvalidJson());
  });
  const lost = (error: Error) => {
    if (current === thread) current = undefined;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  worker.on("error", lost);
  worker.on("exit", (code) => lost(new Error(`the JSON thread exited with code ${code}`)));
  return thread;
}

/**
 * The JSON value of `bytes`, decoded and parsed in the thread; rejects with {@link InvalidJson}
 * when they are not UTF-8 JSON, and with another error when the thread died. `bytes` must not be
 * used afterwards: its memory may have moved to the thread.
 */
export function parseJsonInThread(bytes: Uint8Array): Promise<unknown> {
  clearTimeout(idleTimer);
  const { worker, pending } = (current ??= start());
  const id = nextId++;
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const moved = owned ? bytes : bytes.slice();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.ref();
    worker.postMessage({ id, bytes: moved }, [moved.buffer as ArrayBuffer]);
  });
}
