import { Readable } from "node:stream";
import type { SendMailOptions } from "nodemailer";
import type { DkimSigning, TransportError } from "../../src/ports/transport.js";
import { signingFailure } from "./signed-mail.js";
import { signMessage } from "./signing-place.js";

/**
 * Signing inside nodemailer's own pipeline: a "stream" plugin on the transporter adds, to each
 * message that carries flagpost's DKIM key, a process function (MimeNode.processFunc, the hook
 * nodemailer's own signer uses) that reads the message as sendMail composed it, signs it and
 * hands on the DKIM-Signature field followed by the message (the signing itself runs in a
 * signing thread or on the loop, signing-place.ts). The message is composed once, with
 * the transporter's defaults (default headers, X-Mailer) applied, where composing it beforehand
 * and handing sendMail `raw` composed it twice and left the defaults out.
 */

/** The mail data key the plugin reads: plain data, so nodemailer copies it with the rest. */
const DKIM_KEY = "flagpostDkim";

/** What the plugin finds under {@link DKIM_KEY}: the key, and how many signing threads may sign. */
interface ToSign {
  dkim: DkimSigning;
  threads: number;
}

interface PluginMail {
  data: Record<string, unknown>;
  message: { processFunc(fn: (input: Readable) => Readable): void };
}

/** A nodemailer transporter that takes plugins (every `nodemailer.createTransport` result does). */
interface PluggableTransporter {
  use(step: "stream", plugin: (mail: PluginMail, done: (error?: Error) => void) => void): unknown;
  transporter?: { name?: unknown };
}

const withPlugin = new WeakSet<object>();

/**
 * Installs the signing plugin on `transporter` once, and says whether mail through it can be
 * signed in its pipeline. Not for a transporter without plugins (a stand-in with sendMail only),
 * nor for the JSON transport, which never writes the message: those get `raw` instead.
 */
export function signsInPipeline(transporter: object): boolean {
  if (withPlugin.has(transporter)) return true;
  const pluggable = transporter as Partial<PluggableTransporter>;
  if (typeof pluggable.use !== "function" || pluggable.transporter?.name === "JSONTransport") return false;
  pluggable.use.call(transporter, "stream", (mail, done) => {
    const toSign = mail.data[DKIM_KEY] as ToSign | undefined;
    if (toSign !== undefined) mail.message.processFunc((input) => signingStream(input, toSign));
    done();
  });
  withPlugin.add(transporter);
  return true;
}

/**
 * The stream's error when the message could not be signed. nodemailer writes its own fields onto
 * a stream's error (`code: "ESTREAM"`), so the TransportError to report rides inside this one.
 */
class UnsignedMessage extends Error {
  readonly failure: TransportError;
  constructor(failure: TransportError) {
    super(failure.message);
    this.failure = failure;
  }
}

/** The TransportError to report when `error` is a signing failure from the plugin. */
export function signingFailureIn(error: unknown): TransportError | undefined {
  return error instanceof UnsignedMessage ? error.failure : undefined;
}

/** `options` marked for the plugin to sign with `dkim`, in up to `threads` signing threads. */
export function toBeSigned(options: SendMailOptions, dkim: DkimSigning, threads: number): SendMailOptions {
  return Object.assign(options, { [DKIM_KEY]: { dkim, threads } satisfies ToSign });
}

/**
 * The message read from `input`, with its DKIM-Signature field in front. Nothing comes out before
 * the signature exists: a message that cannot be signed ends the stream with the error, so the
 * transport aborts it (SMTP never finishes DATA) instead of sending it unsigned. The event loop
 * only gathers the bytes, which a signing thread (or, with none, the loop and libuv's pool) signs.
 */
function signingStream(input: Readable, { dkim, threads }: ToSign): Readable {
  const output = new Readable({ read() {} });
  const chunks: Buffer[] = [];
  input.on("data", (chunk: Buffer | string) =>
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk),
  );
  input.once("error", (error) => output.destroy(error));
  input.once("end", () => {
    signMessage(chunks, dkim, threads).then(
      (signed) => {
        for (const part of signed) output.push(part);
        output.push(null);
      },
      (error: unknown) => output.destroy(new UnsignedMessage(signingFailure(dkim, error))),
    );
  });
  return output;
}
