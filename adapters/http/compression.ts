import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/**
 * Content codings for bodies flagpost sends often and compresses once (the flag snapshot):
 * RFC 9110 Accept-Encoding negotiation, and each coding of a body made once, off the event loop
 * (node:zlib's thread pool), shared by every request that asks for it while it is being made.
 */

export type Coding = "br" | "gzip";

/** Bodies smaller than this go out as they are: compressing them saves little or grows them. */
export const MIN_COMPRESSED_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The coding to answer with for this Accept-Encoding: brotli or gzip when the client accepts it
 * (q > 0, by name or through `*`), brotli on a tie; undefined for none (identity, which RFC 9110
 * lets a server send even when the client refused it).
 */
export function negotiateCoding(header: string | undefined): Coding | undefined {
  if (header === undefined || header === "") return undefined;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";");
    let q = 1;
    for (const param of params) {
      const [key = "", value = ""] = param.split("=");
      if (key.trim().toLowerCase() !== "q") continue;
      const parsed = Number(value.trim());
      q = Number.isFinite(parsed) ? parsed : 0;
    }
    const coding = name.trim().toLowerCase();
    weights.set(coding === "x-gzip" ? "gzip" : coding, q);
  }
  const any = weights.get("*") ?? 0;
  const br = weights.get("br") ?? any;
  const gz = weights.get("gzip") ?? any;
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : undefined;
}

/** One body and its compressed forms, each made on first request. */
export class EncodedBody {
  readonly identity: Buffer;
  readonly #encoded = new Map<Coding, Promise<Buffer>>();

  constructor(identity: Buffer) {
    this.identity = identity;
  }

  /** Whether this body is worth compressing at all. */
  get compressible(): boolean {
    return this.identity.byteLength >= MIN_COMPRESSED_BYTES;
  }

  encoded(coding: Coding): Promise<Buffer> {
    let made = this.#encoded.get(coding);
    if (made === undefined) {
      made =
        coding === "br"
          ? brotli(this.identity, {
              params: {
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_QUALITY]: 9,
                [constants.BROTLI_PARAM_SIZE_HINT]: this.identity.byteLength,
              },
            })
          : gzipAsync(this.identity);
      // A failure is not kept: the next request tries again.
      made.catch(() => this.#encoded.delete(coding));
      this.#encoded.set(coding, made);
    }
    return made;
  }
}
