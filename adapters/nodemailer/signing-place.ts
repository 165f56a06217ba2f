import { availableParallelism } from "node:os";
import type { DkimSigning } from "../../src/ports/transport.js";
import { dkimSignatureFieldOnLoop } from "./dkim-signature.js";
import { signInThread } from "./signing-threads.js";

/**
 * Where DKIM signing runs (docs/domains.md, "Signing"). With a core the event loop leaves spare,
 * signing threads halve the loop's cost per message; confined to one core, a thread only adds the
 * trip (about 70 µs more CPU per message than signing on the loop with the RSA operation on
 * libuv's pool). So the default is one thread per spare core, and none on one core.
 */
export function defaultSigningThreads(): number {
  return availableParallelism() - 1;
}

/** `threads` when it is a whole number of 0 or more; anything else is an error naming the option. */
export function checkedSigningThreads(threads: number | undefined): number {
  if (threads === undefined) return defaultSigningThreads();
  if (!Number.isInteger(threads) || threads < 0)
    throw new RangeError(`signingThreads must be a whole number of 0 or more, not ${String(threads)}`);
  return threads;
}

/**
 * The message made of `chunks` with its DKIM-Signature field in front, as the buffers to write in
 * order: made in up to `threads` signing threads, or with 0 on the event loop (canonicalization
 * and hashes) and libuv's pool (the RSA operation). Rejects when the message cannot be signed.
 */
export async function signMessage(chunks: readonly Buffer[], dkim: DkimSigning, threads: number): Promise<Buffer[]> {
  if (threads > 0) return [await signInThread(chunks, dkim, threads)];
  const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return [Buffer.from(await dkimSignatureFieldOnLoop(raw, dkim), "latin1"), raw];
}
