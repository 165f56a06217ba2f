import { errorFields, type Logger } from "../ports/logger.js";
import { type RecipientBounceFacts, recipientFacts } from "./report-envelope.js";
import type { SuppressionPolicy } from "./suppression-policy.js";
import type { RecordedRefusal } from "./outcome.js";

/**
 * The recipients the first hop refused for good at RCPT (5xx), as an attempt's outcome records
 * them (src/emails/outcome.ts classified each): the bounces the worker applies the suppression
 * policy to, and that a bounced email's `bounce` lists.
 */
export function refusalBounces(rejected: readonly RecordedRefusal[]): RecipientBounceFacts[] {
  return rejected
    .filter((r) => r.permanent)
    .map((r) =>
      recipientFacts({
        email: r.recipient.toLowerCase(),
        type: r.bounce_type ?? "Undetermined",
        subType: r.sub_type ?? "General",
        status: r.status,
        reason: r.reason,
        diagnostic: r.response,
      }),
    );
}

/** Applies the suppression policy to each refusal; a failure is logged (the outcome is already stored). */
export async function suppressRefused(
  policy: SuppressionPolicy,
  logger: Logger,
  emailId: string,
  refused: readonly RecipientBounceFacts[],
): Promise<void> {
  for (const bounce of refused) {
    try {
      await policy.afterBounce(emailId, bounce);
    } catch (error) {
      logger.error("email outbox: a refused recipient could not be suppressed", { id: emailId, ...errorFields(error) });
    }
  }
}
