import { errorFields, type Logger } from "../ports/logger.js";
import { type RecipientBounceFacts, recipientFacts } from "./report-envelope.js";
import type { SuppressionPolicy } from "./suppression-policy.js";
import type { BounceReason, BounceSummary } from "./reports.js";

const TYPES = new Set(["Permanent", "Transient", "Undetermined"]);

/**
 * The recipients the first hop refused for good at RCPT (5xx), as an attempt's detail records
 * them (src/emails/outcome.ts classified each): the bounces the worker applies the suppression
 * policy to, and that a bounced email's `bounce` lists.
 */
export function refusalBounces(detail: Record<string, unknown>): RecipientBounceFacts[] {
  const rejected = Array.isArray(detail.rejected) ? (detail.rejected as Record<string, unknown>[]) : [];
  return rejected
    .filter((r) => r.permanent === true && typeof r.recipient === "string")
    .map((r) =>
      recipientFacts({
        email: String(r.recipient).toLowerCase(),
        type: TYPES.has(String(r.bounce_type)) ? (r.bounce_type as BounceSummary["type"]) : "Undetermined",
        subType: typeof r.sub_type === "string" ? r.sub_type : "General",
        status: typeof r.status === "string" ? r.status : undefined,
        reason: typeof r.reason === "string" ? (r.reason as BounceReason) : undefined,
        diagnostic: typeof r.response === "string" ? r.response : undefined,
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
