import type { KeyObject } from "node:crypto";
import type { Worker } from "node:worker_threads";
import type { DkimSigning } from "../../src/ports/transport.js";
import { startModuleWorker } from "../../src/module-worker.js";

/** What a signing thread is asked: sign `message` (transferred) with key `keyId`. */
export interface SigningRequest {
  id: number;
  message: Uint8Array;
  keyId: number;
  /** The key, the first time this thread is asked to sign with it. */
  key?: KeyObject;
  headersId: number;
  /** The header list, the first time this thread is asked to sign over it. */
  headers?: readonly string[];
  domainName: string;
  keySelector: string;
}

/** The message with its DKIM-Signature field in front (transferred back), or why not. */
export type SigningReply = { id: number; signed: Uint8Array } | { id: number; error: string };

interface Pending {
  resolve(signed: Buffer): void;
  reject(error: Error): void;
}

interface SigningThread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Keys and header lists this thread already holds, by number. */
  holds: Set<string>;
}

/** A pool that has signed nothing for this long ends its threads (a new signature starts them again). */
const IDLE_MS = 30_000;

const threads: SigningThread[] = [];
let nextId = 0;
let signedSoFar = 0;
let idleCheck: NodeJS.Timeout | undefined;
const numbers = new WeakMap<object, number>();
let nextNumber = 0;

function numberOf(thing: object): number {
  let n = numbers.get(thing);
  if (n === undefined) numbers.set(thing, (n = nextNumber++));
  return n;
}

function start(): SigningThread {
  const thread: SigningThread = {
    worker: startModuleWorker(import.meta.url, "signing-worker"),
    pending: new Map(),
    holds: new Set(),
  };
  // Idle, a thread must not keep the process alive; a signature in flight refs it (see signInThread).
  thread.worker.unref();
  thread.worker.on("message", (reply: SigningReply) => {
    const waiting = thread.pending.get(reply.id);
    if (waiting === undefined) return;
    thread.pending.delete(reply.id);
    if (thread.pending.size === 0) thread.worker.unref();
    signedSoFar++;
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(Buffer.from(reply.signed.buffer, reply.signed.byteOffset, reply.signed.byteLength));
  });
  let reason = "";
  thread.worker.on("error", (error) => (reason = error.message));
  thread.worker.on("exit", (code) => {
    const at = threads.indexOf(thread);
    if (at >= 0) threads.splice(at, 1);
    const error = new Error(`the DKIM signing thread stopped (${reason || `exit code ${code}`})`);
    for (const waiting of thread.pending.values()) waiting.reject(error);
    thread.pending.clear();
  });
  threads.push(thread);
  idleCheck ??= setInterval(endIfIdle, IDLE_MS).unref();
  return thread;
}

/** Ends every thread when nothing was signed since the last check and nothing is in flight. */
let signedAtCheck = -1;
function endIfIdle(): void {
  const idle = signedSoFar === signedAtCheck && threads.every((t) => t.pending.size === 0);
  signedAtCheck = signedSoFar;
  if (!idle) return;
  for (const thread of threads.splice(0)) void thread.worker.terminate();
  clearInterval(idleCheck);
  idleCheck = undefined;
}

/** The least busy thread, or a new one while every thread is busy and fewer than `size` run. */
function pick(size: number): SigningThread {
  let best: SigningThread | undefined;
  for (const t of threads) if (best === undefined || t.pending.size < best.pending.size) best = t;
  if (best === undefined || (best.pending.size > 0 && threads.length < size)) return start();
  return best;
}

/**
 * `chunks` copied into one buffer of their own: they may be views into Node's shared buffer pool,
 * which must not be transferred to another thread. The one copy of the message on the event loop.
 */
function ownBuffer(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/**
 * The message made of `chunks` (complete, as it goes on the wire) with its DKIM-Signature field
 * in front, made in a signing thread: the event loop only hands the bytes over (transferred, not
 * copied) and takes them back. Rejects when the key cannot sign or the thread stops meanwhile;
 * the caller must then not send the message. At most `size` threads run (see signing-place.ts).
 */
export function signInThread(chunks: readonly Uint8Array[], dkim: DkimSigning, size: number): Promise<Buffer> {
  const message = ownBuffer(chunks);
  const thread = pick(size);
  const id = nextId++;
  const keyId = numberOf(dkim.privateKey);
  const headersId = numberOf(dkim.signedHeaders);
  const request: SigningRequest = {
    id,
    message,
    keyId,
    headersId,
    domainName: dkim.domainName,
    keySelector: dkim.keySelector,
  };
  if (!thread.holds.has(`k${keyId}`)) {
    request.key = dkim.privateKey;
    thread.holds.add(`k${keyId}`);
  }
  if (!thread.holds.has(`h${headersId}`)) {
    request.headers = dkim.signedHeaders;
    thread.holds.add(`h${headersId}`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    if (thread.pending.size === 0) thread.worker.ref();
    thread.pending.set(id, { resolve, reject });
    thread.worker.postMessage(request, [message.buffer as ArrayBuffer]);
  });
}

/** The signing threads running now: none until something is signed. */
export function signingThreads(): readonly Worker[] {
  return threads.map((t) => t.worker);
}
