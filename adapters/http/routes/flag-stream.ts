import type { Flagpost } from "../../../src/flagpost.js";
import type { FlagStreamBatch, FlagStreamStart, FlagStreamSubscription } from "../../../src/flags/store/index.js";
import { flagJson } from "../../../src/flags/index.js";
import { refuseQuery } from "../query.js";
import type { Route } from "../types.js";
import { buildSnapshot } from "./flag-snapshot.js";

/**
 * `GET /v1/flags/_stream` (docs/api.md "Flag stream", docs/flags.md "Streaming"): Server-Sent
 * Events from `fp.flagStream`. First a `snapshot` event (the body of GET /v1/flags/_snapshot),
 * or, with a `Last-Event-ID` this process can resume from, the changes missed since; then one
 * `flag.created` / `flag.updated` (`{"data": flag}`) or `flag.deleted` (`{"data": {"key"}}`) event
 * per change. `id:` is the flags revision, on the last event of each batch only, so a client that
 * dropped halfway through a batch resumes before it. Keep-alive comments in between.
 */

export const FLAG_STREAM_PATH = "/v1/flags/_stream";

const UTF8 = new TextEncoder();
const KEEP_ALIVE = UTF8.encode(": keep-alive\n\n");
/** Reconnection delay suggested to EventSource clients. */
const PREAMBLE = UTF8.encode("retry: 1000\n\n");
/** A client this far behind (bytes queued beyond what it was first sent) is dropped; it resumes on reconnecting. */
const MAX_BEHIND_BYTES = 4 * 1024 * 1024;
const REVISION = /^\d{1,15}$/;

function eventFrame(event: string, data: unknown, id?: number): string {
  // JSON.stringify escapes line breaks, so the data is always one line.
  return `event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

function batchFrames(batch: FlagStreamBatch): string {
  const last = batch.changes.length - 1;
  return batch.changes
    .map((change, i) =>
      eventFrame(
        change.type,
        { data: change.type === "flag.deleted" ? { key: change.key } : flagJson(change.flag) },
        i === last ? batch.revision : undefined,
      ),
    )
    .join("");
}

export function flagStreamRoutes(fp: Flagpost): Route[] {
  // Encoded once per batch and per snapshot revision, whatever the number of clients.
  const batches = new WeakMap<FlagStreamBatch, Uint8Array>();
  let snapshot: { revision: number; bytes: Uint8Array } | undefined;

  function encodeBatch(batch: FlagStreamBatch): Uint8Array {
    let bytes = batches.get(batch);
    if (!bytes) batches.set(batch, (bytes = UTF8.encode(batchFrames(batch))));
    return bytes;
  }

  function encodeStart(start: FlagStreamStart): Uint8Array {
    if (start.kind === "replay") {
      const parts = start.batches.map(encodeBatch);
      return parts.length === 1 ? parts[0]! : UTF8.encode(start.batches.map(batchFrames).join(""));
    }
    if (snapshot?.revision !== start.revision) {
      const { data } = buildSnapshot(start.revision, start.flags);
      snapshot = { revision: start.revision, bytes: UTF8.encode(eventFrame("snapshot", { data }, start.revision)) };
    }
    return snapshot.bytes;
  }

  return [
    {
      method: "GET",
      path: FLAG_STREAM_PATH,
      scope: "flags:read",
      style: "data",
      body: false,
      async handle(ctx) {
        refuseQuery(ctx.query);
        // An id this server never sent (or none) starts from a snapshot, as the SSE spec expects.
        const header = ctx.headers["last-event-id"]?.trim();
        const lastRevision = header !== undefined && REVISION.test(header) ? Number(header) : undefined;
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        // Replaced once subscribed; a client that left before that has nothing to let go of.
        let unsubscribe: () => void = () => undefined;
        let limit = MAX_BEHIND_BYTES;
        let open = true;
        const stream = new ReadableStream<Uint8Array>(
          {
            start: (c) => void (controller = c),
            cancel: () => {
              open = false;
              unsubscribe();
            },
          },
          new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
        );
        const send = (bytes: Uint8Array) => {
          if (!open) return;
          if ((controller.desiredSize ?? 0) < -limit) {
            open = false;
            unsubscribe();
            controller.error(new Error("the client fell too far behind the flag stream"));
            return;
          }
          controller.enqueue(bytes);
        };
        const subscription: FlagStreamSubscription = await fp.flagStream.subscribe(
          {
            start(start) {
              const first = encodeStart(start);
              limit = Math.max(MAX_BEHIND_BYTES, 2 * first.byteLength);
              send(PREAMBLE);
              if (first.byteLength > 0) send(first);
            },
            changed: (batch) => send(encodeBatch(batch)),
            keepAlive: () => send(KEEP_ALIVE),
            closed: () => {
              if (!open) return;
              open = false;
              controller.close();
            },
          },
          lastRevision,
        );
        unsubscribe = () => subscription.close();
        return {
          status: 200,
          stream,
          headers: {
            "content-type": "text/event-stream; charset=utf-8",
            "cache-control": "no-cache",
            // Proxies such as nginx buffer responses unless told not to.
            "x-accel-buffering": "no",
          },
        };
      },
    },
  ];
}
