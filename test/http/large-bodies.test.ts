import { readdirSync } from "node:fs";
import { PassThrough } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { JSON_THREAD_IDLE_MS, parseJsonInThread } from "../../adapters/http/json-thread.js";
import { PREALLOCATED_BODY_BYTES, readNodeStream } from "../../adapters/http/read-body.js";

/**
 * What reading a large body leaves behind (docs/reliability.md, "Large emails and other
 * requests"): the JSON thread ends once idle, so its heap goes back to the system, and a body with
 * a declared length is read into one buffer of its own.
 */

const MiB = 1024 * 1024;

/** The process's threads, as Linux lists them. */
const threads = () => readdirSync("/proc/self/task").length;

describe.runIf(process.platform === "linux")("the JSON thread", () => {
  it("ends once it has had nothing to parse for a while, and starts again for the next body", async () => {
    const body = () => Buffer.from(JSON.stringify({ content: "A".repeat(2 * MiB) }));
    // A first parse starts whatever the process starts once (libuv's pool, the thread's own).
    await parseJsonInThread(body());
    await delay(JSON_THREAD_IDLE_MS + 500);
    const idle = threads();

    expect(await parseJsonInThread(body())).toEqual({ content: "A".repeat(2 * MiB) });
    expect(threads()).toBe(idle + 1);
    await delay(JSON_THREAD_IDLE_MS + 500);
    expect(threads()).toBe(idle);
    expect(await parseJsonInThread(body())).toEqual({ content: "A".repeat(2 * MiB) });
  });

  it("parses a body that comes just as the idle thread ends, on the next thread", async () => {
    const body = Buffer.from(JSON.stringify({ n: 1, pad: "x".repeat(2 * MiB) }));
    await parseJsonInThread(Buffer.from(body));
    // Due with the idle timer, then one more turn: the thread has just been told to end, and is not gone yet.
    const next = await new Promise<{ parsed: Promise<unknown> }>((resolve) =>
      setTimeout(
        () => setImmediate(() => resolve({ parsed: parseJsonInThread(Buffer.from(body)) })),
        JSON_THREAD_IDLE_MS,
      ),
    );
    await expect(next.parsed).resolves.toMatchObject({ n: 1 });
  });
});

describe("reading a Node stream", () => {
  const streamOf = (chunks: Buffer[]) => {
    const stream = new PassThrough();
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
    return stream;
  };

  it("reads a declared large body into one buffer of its own", async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const total = chunks.reduce((sum, c) => sum + c.length, 0);
    expect(total).toBeGreaterThanOrEqual(PREALLOCATED_BODY_BYTES);
    const read = await readNodeStream(streamOf(chunks), 4 * MiB, String(total));
    expect(Buffer.compare(read, Buffer.concat(chunks))).toBe(0);
    expect(read.byteOffset === 0 && read.byteLength === read.buffer.byteLength).toBe(true);
  });

  it("reads a body shorter or longer than it declared, whole", async () => {
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.alloc(100 * 1024, i));
    const total = chunks.reduce((sum, c) => sum + c.length, 0);
    for (const declared of [total - 5000, total + 5000]) {
      const read = await readNodeStream(streamOf(chunks), 4 * MiB, String(declared));
      expect(Buffer.compare(read, Buffer.concat(chunks))).toBe(0);
    }
    await expect(readNodeStream(streamOf(chunks), MiB, String(MiB))).rejects.toThrow("larger than this route's limit");
  });
});
