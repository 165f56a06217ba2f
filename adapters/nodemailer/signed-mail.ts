import type { SendMailOptions } from "nodemailer";
import type MailComposer from "nodemailer/lib/mail-composer";
import { type DkimSigning, TransportError } from "../../src/ports/transport.js";
import { signMessage } from "./signing-place.js";

// Loaded with the first signed message rather than at import: by then flagpost/nodemailer's index
// has named a missing nodemailer install (importWithPeers), which a static import here would
// pre-empt with Node's bare "Cannot find package".
let composer: Promise<typeof MailComposer> | undefined;

/**
 * `options` as a message signed with `dkim`: nodemailer's MailComposer writes it exactly as
 * sendMail would, flagpost's signer (dkim-signature.ts, where signing-place.ts says) puts the DKIM-Signature
 * field in front, and sendMail gets the result as `raw` with the envelope, Message-ID and DSN request that
 * nodemailer would have used. A message that cannot be signed is not sent: the attempt fails as a
 * transient TransportError (retried within the budget, like a sealed key that does not open).
 */
export async function signedMailOptions(
  options: SendMailOptions,
  dkim: DkimSigning,
  threads: number,
): Promise<SendMailOptions> {
  composer ??= import("nodemailer/lib/mail-composer").then((m) => m.default);
  const node = new (await composer)(options).compile();
  const raw = await node.build();
  let signedRaw: Buffer;
  try {
    signedRaw = Buffer.concat(await signMessage([raw], dkim, threads));
  } catch (error) {
    throw signingFailure(dkim, error);
  }
  const signed: SendMailOptions = {
    raw: signedRaw,
    envelope: node.getEnvelope(),
    messageId: node.messageId(),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  if (options.dsn) signed.dsn = options.dsn;
  return signed;
}

/** A message that could not be signed: a transient failure of the attempt (it is not sent). */
export function signingFailure(dkim: DkimSigning, error: unknown): TransportError {
  return new TransportError(
    "transient",
    `could not DKIM-sign the message for ${dkim.domainName}: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
