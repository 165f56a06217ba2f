import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { serveCalls } from "./lib/child.js";

/**
 * bench:emails' SMTP sink, in a process of its own pinned to the other core: smtp-server on
 * 127.0.0.1 that accepts every message, reads its data and keeps only a count, the arrival time
 * of the last one and the Message-IDs seen (to count duplicates). No parsing: the sink must not
 * be what limits the rate.
 */

let received = 0;
/** Messages that carry a DKIM-Signature (the signing row must have one on each, the others none). */
let signed = 0;
let lastAt = 0;
const messageIds = new Map<string, number>();
let waiters: { count: number; resolve: (at: number) => void }[] = [];

const MESSAGE_ID = /^message-id:\s*(<[^>\r\n]*>)/im;
const DKIM_SIGNATURE = /^dkim-signature:/im;

/** Wall-clock milliseconds, comparable across processes on this machine. */
const now = () => performance.timeOrigin + performance.now();

const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["AUTH", "STARTTLS"],
  logger: false,
  disableReverseLookup: true,
  size: 16 * 1024 * 1024,
  onData(stream, _session, callback) {
    let head = "";
    stream.on("data", (chunk: Buffer) => {
      if (head.length < 4096) head += chunk.toString("latin1");
    });
    stream.on("end", () => {
      received += 1;
      lastAt = now();
      const id = MESSAGE_ID.exec(head)?.[1];
      if (id !== undefined) messageIds.set(id, (messageIds.get(id) ?? 0) + 1);
      if (DKIM_SIGNATURE.test(head)) signed += 1;
      if (waiters.length > 0) {
        const done = waiters.filter((w) => received >= w.count);
        waiters = waiters.filter((w) => received < w.count);
        for (const w of done) w.resolve(lastAt);
      }
      callback();
    });
  },
});
server.on("error", () => undefined);

const listening = new Promise<{ port: number }>((resolve) => {
  server.listen(0, "127.0.0.1", () => resolve({ port: (server.server.address() as AddressInfo).port }));
});

serveCalls(
  {
    reset: () => {
      received = 0;
      signed = 0;
      lastAt = 0;
      messageIds.clear();
    },
    /** Resolves with the arrival time (epoch ms) of the `count`-th message since the last reset. */
    waitFor: (count: number) =>
      received >= count ? lastAt : new Promise<number>((resolve) => waiters.push({ count, resolve })),
    stats: () => ({
      received,
      signed,
      distinct: messageIds.size,
      duplicates: [...messageIds.values()].filter((n) => n > 1).length,
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  },
  listening,
);
