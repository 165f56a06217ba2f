import { bounceOf, enhancedStatus } from "./report-fields.js";
import type { BounceReason, BounceSummary, DeliveryAction } from "./reports.js";

/**
 * What one report says of one recipient, before classification: every report source (DSN,
 * plain-text bounce reader, provider webhook) gathers these facts and asks `classifyRecipient`,
 * so every source is classified by the same rules.
 */
export interface RecipientFacts {
  action?: DeliveryAction;
  /** The enhanced status the report gives (`5.1.1`), if any. */
  status?: string;
  /** The SMTP reply code the report quotes (`550`), if any. */
  replyCode?: string;
  /** The remote server's words. */
  diagnostic?: string;
  /** The SMTP command that was refused (`RCPT`, `DATA`…), if known. */
  command?: string;
  /** A reason the reader found itself (its own vendor phrases), if any: it wins over the generic tables. */
  reason?: BounceReason;
}

export interface Classification {
  /** The status, refined from the diagnostic where the report's is missing, x.0.0 or of another class. */
  status?: string;
  reason: BounceReason;
  type: BounceSummary["type"];
  subType: string;
}

/**
 * Classifies one recipient's report: its reason (Sisimai's names), hard or soft as Sisimai
 * decides it, and SES's sub-type.
 */
export function classifyRecipient(facts: RecipientFacts): Classification {
  const bounce = bounceOf(facts.status, facts.diagnostic);
  const status = enhancedStatus(facts.status) ?? enhancedStatus(facts.diagnostic);
  return {
    ...(status === undefined ? {} : { status }),
    reason: facts.reason ?? (bounce.subType === "NoEmail" ? "userunknown" : "undefined"),
    type: bounce.type,
    subType: bounce.subType,
  };
}

/**
 * Reasons that say something about the sender (its IP, domain, authentication, content or
 * sending rate) and nothing about the recipient's address: they never suppress the address.
 */
export const SENDER_SIDE_REASONS: ReadonlySet<BounceReason> = new Set<BounceReason>([
  "blocked",
  "securityerror",
  "authfailure",
  "requireptr",
  "badreputation",
  "failedstarttls",
  "notcompliantrfc",
  "norelaying",
  "policyviolation",
  "spamdetected",
  "virusdetected",
  "contenterror",
  "rejected",
  "toomanyconn",
  "speeding",
]);

/** True when the reason may count against the recipient's address (for the suppression policy). */
export function isRecipientCaused(reason: BounceReason | undefined): boolean {
  return reason === undefined || !SENDER_SIDE_REASONS.has(reason);
}
