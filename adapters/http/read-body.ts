import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { FlagpostError } from "../../src/errors.js";
import type { RequestBody } from "./types.js";

function tooLarge(limit: number): FlagpostError {
  return new FlagpostError("payload_too_large", `The request body is larger than this route's limit of ${limit} bytes`);
}

function unreadable(cause: unknown): FlagpostError {
  return new FlagpostError("invalid_json", "The request body could not be read", { cause });
}

/** Whether the headers announce a body (a length above zero, or chunked transfer). */
export function hasBody(headers: IncomingHttpHeaders | Record<string, string | undefined>): boolean {
  const length = headers["content-length"];
  if (length !== undefined && length !== "0") return true;
  return headers["transfer-encoding"] !== undefined;
}

/**
 * Below this declared length a body is collected chunk by chunk and joined at the end; from it
 * on, into one buffer of the declared length allocated up front. Joining 39 MiB at the end held
 * the event loop about 100 ms in one turn under load (the copy and the page faults of the fresh
 * buffer) and had both the chunks and the copy alive at once; copied as each chunk arrives, the
 * same work is spread over the upload and the body is held once. The buffer owns its memory, so
 * the JSON thread takes it without a copy (json-thread.ts).
 */
export const PREALLOCATED_BODY_BYTES = 1024 * 1024;

/**
 * Reads a Node stream up to `limit` bytes. Past the limit it stops collecting and lets the rest
 * drain (so the client can read the 413 instead of a reset), then rejects.
 */
export function readNodeStream(stream: Readable, limit: number, declaredLength?: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = declaredLength === undefined ? undefined : Number(declaredLength);
    if (declared !== undefined && declared > limit) {
      stream.resume();
      reject(tooLarge(limit));
      return;
    }
    let whole =
      declared !== undefined && declared >= PREALLOCATED_BODY_BYTES ? Buffer.allocUnsafeSlow(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    // Inline listeners, and `on` rather than `once`: this runs on every request with a body.
    stream.on("data", (chunk: Buffer) => {
      if (failed) return;
      if (size + chunk.length > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      if (whole && size + chunk.length > whole.length) {
        // More than declared (Node's HTTP parser never lets that through; another stream might).
        chunks.push(whole.subarray(0, size));
        whole = undefined;
      }
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    });
    stream.on("end", () => {
      if (failed) return;
      if (whole) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    stream.on("error", (error) => {
      if (!failed) reject(unreadable(error));
      failed = true;
    });
  });
}

/** A Node request stream that nothing has read yet (a class: no closures per request). */
class NodeStreamBody {
  readonly kind = "stream";
  readonly #stream: Readable;
  readonly #declaredLength: string | undefined;

  constructor(stream: Readable, declaredLength: string | undefined) {
    this.#stream = stream;
    this.#declaredLength = declaredLength;
  }

  read(limit: number): Promise<Uint8Array> {
    return readNodeStream(this.#stream, limit, this.#declaredLength);
  }
}

/** The RequestBody for a Node request stream that nothing has read yet. */
export function nodeStreamBody(stream: Readable, headers: IncomingHttpHeaders): RequestBody {
  if (!hasBody(headers)) return { kind: "none" };
  return new NodeStreamBody(stream, headers["content-length"]);
}

/**
 * Reads a WHATWG stream up to `limit` bytes; `open` is only called once the declared length is
 * known to fit. Past the limit it cancels the stream: what is left of the upload is the server's
 * to discard, as it does for any body a handler did not read.
 */
export async function readWebStream(
  open: () => ReadableStream<Uint8Array> | null,
  limit: number,
  declaredLength?: string | null,
): Promise<Uint8Array> {
  if (declaredLength != null && Number(declaredLength) > limit) throw tooLarge(limit);
  const stream = open();
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw unreadable(error);
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(chunk.value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * Reads a WHATWG Request's body whole when its declared length fits the limit (the framing keeps
 * it to that length); the length read is checked again all the same.
 */
export async function readWebBytes(
  request: Pick<Request, "arrayBuffer">,
  limit: number,
  declaredLength: string,
): Promise<Uint8Array> {
  if (Number(declaredLength) > limit) throw tooLarge(limit);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw unreadable(error);
  }
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return bytes;
}

/** A body some middleware already read into memory (Express's `text()`/`raw()`, Hono's cache). */
export function bytesBody(load: () => Promise<Uint8Array> | Uint8Array): RequestBody {
  return {
    kind: "stream",
    async read(limit) {
      const bytes = await load();
      if (bytes.byteLength > limit) throw tooLarge(limit);
      return bytes;
    },
  };
}

/** A body that cannot be read because something before flagpost already failed reading it. */
export function failedBody(error: FlagpostError): RequestBody {
  return { kind: "stream", read: () => Promise.reject(error) };
}
