import type { ByteBudget } from "../jobs/byte-budget.js";
import type { ClaimedEmail, EmailEvent, EmailRecord, Storage } from "../ports/storage/index.js";
import type { MailTransport, OutgoingMessage, TransportResult } from "../ports/transport.js";
import type { MailAddress } from "../ports/transport.js";
import { addressesOf, envelopeRecipients, toOutgoing } from "./message.js";
import { failureOutcome, type Outcome, type RecordedRefusal, successOutcome } from "./outcome.js";
import type { VerpTags } from "./verp-tag.js";
import type { DomainSigner } from "../domains/sending-domains.js";
import type { SuppressionLookups } from "./suppression-lookups.js";

export interface SendAttemptDeps {
  storage: Storage;
  /** The suppression check at send time, shared by the attempts that start together. */
  suppressions: Pick<SuppressionLookups, "suppressedAmong">;
  transport: MailTransport;
  /** Bounds the content of large emails (claimed without it) being sent at once. */
  budget: ByteBudget;
  sendTimeoutMs: number;
  maxAttempts: number;
  bounceDomain?: string;
  /** Makes the VERP tag of the return path; needed with a bounce domain. */
  verpTags?: VerpTags;
  /**
   * The signing key and return-path host of a verified `from` domain (src/domains/sending-domains.ts):
   * such mail is DKIM-signed and its VERP return path is on the domain's return-path host.
   */
  signers?: { signerFor(from: MailAddress): Promise<DomainSigner | undefined> };
}

class SendTimeout extends Error {
  override readonly name = "SendTimeout";
}

/**
 * Recipients earlier attempts of this email settled: accepted by the server, or refused for good,
 * as their `delivery_delayed` events (a retry after a partial send) recorded them.
 */
interface Settled {
  accepted: Set<string>;
  /** Refused for good: their addresses, and the refusals as recorded. */
  refused: Set<string>;
  refusals: RecordedRefusal[];
}

/** The partial sends of earlier attempts, read back from their stored events (written by this module as `outcomeDetail`). */
function settledEarlier(events: readonly EmailEvent[]): Settled {
  const settled: Settled = { accepted: new Set(), refused: new Set(), refusals: [] };
  for (const event of events) {
    const detail = event.detail;
    if (event.type !== "delivery_delayed" || detail?.partial !== true) continue;
    for (const address of Array.isArray(detail.accepted) ? detail.accepted : [])
      settled.accepted.add(String(address).toLowerCase());
    const rejected = Array.isArray(detail.rejected) ? (detail.rejected as RecordedRefusal[]) : [];
    for (const r of rejected.filter((r) => r.permanent === true)) {
      settled.refused.add(String(r.recipient).toLowerCase());
      settled.refusals.push(r);
    }
  }
  return settled;
}

/**
 * One send attempt of one email (docs/emails.md, "Outcomes"): reads the content of an email
 * claimed without it (under the byte budget, held until the transport is done), leaves out
 * suppressed recipients and those an earlier attempt already settled, sends, and says what the
 * answer means. A temporary refusal of some recipients while others are accepted is a retry of
 * those recipients only (`delivery_delayed` with `partial: true`, `accepted`, `pending`); once
 * an earlier attempt reached someone, the email ends `sent`, never `failed` or `bounced`.
 */
export async function sendAttempt(deps: SendAttemptDeps, claimed: ClaimedEmail): Promise<Outcome> {
  if (claimed.attempts > deps.maxAttempts) {
    // Earlier attempts ended without an outcome (the worker died mid-send each time).
    const error = `gave up after ${deps.maxAttempts} attempts; the last ones ended without an outcome`;
    return { kind: "failed", error, rejected: [], detail: { error, attempts: claimed.attempts - 1 } };
  }
  if (claimed.omittedContentBytes === undefined) return attempt(deps, claimed);
  return deps.budget.hold(claimed.omittedContentBytes, async () => {
    const email = await deps.storage.emails.getEmail(claimed.id);
    if (!email) return { kind: "retry", error: "the email vanished while being sent", rejected: [], detail: {} };
    return attempt(deps, email);
  });
}

async function attempt(deps: SendAttemptDeps, email: EmailRecord): Promise<Outcome> {
  const earlier: Settled =
    email.attempts > 1
      ? settledEarlier(await deps.storage.emails.listEmailEvents(email.id))
      : { accepted: new Set(), refused: new Set(), refusals: [] };
  // The stored address texts, parsed once for this attempt: the recipients, the signer and the message use them.
  const addresses = addressesOf(email.content);
  const open = envelopeRecipients(addresses)
    .map((address) => address.toLowerCase())
    .filter((r) => !earlier.accepted.has(r) && !earlier.refused.has(r));
  const suppressed = await deps.suppressions.suppressedAmong(open);
  if (suppressed.length >= open.length) {
    if (earlier.accepted.size > 0) return reachedEarlier(email, earlier, { suppressed: suppressed.sort() }, []);
    const error = "every recipient is on the suppression list";
    return { kind: "suppressed", error, rejected: [], detail: { error, suppressed: suppressed.sort() } };
  }
  let signer: DomainSigner | undefined;
  try {
    signer = await deps.signers?.signerFor(addresses.from);
  } catch (cause) {
    // A key that does not open (FLAGPOST_SECRET_KEY changed) or storage that does not answer:
    // the mail waits for a fixed setup rather than leaving unsigned from a domain that signs.
    const error = `the sending domain's DKIM key could not be read: ${cause instanceof Error ? cause.message : String(cause)}`;
    return { kind: "retry", error, rejected: [], detail: { error } };
  }
  const bounceDomain = signer?.returnPathHost ?? deps.bounceDomain;
  const verpTag = bounceDomain === undefined ? undefined : await deps.verpTags?.tagOf(email.id);
  const message = toOutgoing(email, addresses, {
    ...(bounceDomain === undefined ? {} : { bounceDomain }),
    ...(verpTag === undefined ? {} : { verpTag }),
    ...(signer === undefined ? {} : { dkim: signer.dkim }),
    omit: new Set([...suppressed, ...earlier.accepted, ...earlier.refused]),
  });
  let outcome: Outcome;
  try {
    const result = await sendWithTimeout(deps, message);
    outcome = successOutcome(result);
    const pending = result.rejected.filter((r) => !r.permanent).map((r) => r.recipient.toLowerCase());
    if (pending.length > 0 && result.accepted.length > 0 && email.attempts < deps.maxAttempts)
      outcome = {
        kind: "retry",
        error: `${pending.length} of ${message.recipients.length} recipients refused for now; retrying them only`,
        accepted: result.accepted,
        rejected: outcome.rejected,
        detail: { ...outcome.detail, partial: true, pending },
      };
  } catch (error) {
    outcome = failureOutcome(
      error,
      message.recipients.map((address) => address.toLowerCase()),
    );
  }
  if (suppressed.length > 0) outcome.detail.suppressed = suppressed.sort();
  // Which return path reports must come back to (the report applier checks a report's VERP tag against it).
  if (bounceDomain !== undefined && message.envelope) outcome.detail.return_path = message.envelope.from;
  if (earlier.accepted.size === 0) return outcome;
  if (outcome.kind === "sent" || outcome.kind === "delivered")
    return {
      ...outcome,
      accepted: [...new Set([...earlier.accepted, ...outcome.accepted])],
      rejected: [...earlier.refusals, ...outcome.rejected],
    };
  if (outcome.kind === "retry" && email.attempts < deps.maxAttempts) return outcome;
  // The rest failed for good, or the budget is spent: the email did reach the earlier recipients.
  const unsent = open.filter((r) => !suppressed.includes(r));
  return reachedEarlier(email, earlier, { ...outcome.detail, unsent }, outcome.rejected);
}

/** `sent` to the recipients earlier attempts reached, the rest given up (their reasons in `detail` and `rejected`). */
function reachedEarlier(
  email: EmailRecord,
  earlier: Settled,
  detail: Record<string, unknown>,
  rejected: RecordedRefusal[],
): Outcome {
  return {
    kind: "sent",
    accepted: [...earlier.accepted],
    rejected: [...earlier.refusals, ...rejected],
    detail: { message_id: email.messageId, ...detail },
  };
}

async function sendWithTimeout(deps: SendAttemptDeps, message: OutgoingMessage): Promise<TransportResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SendTimeout(`the transport did not finish within ${deps.sendTimeoutMs} ms`)),
      deps.sendTimeoutMs,
    );
  });
  try {
    return await Promise.race([deps.transport.send(message), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
