import type { DeliveryReport } from "flagpost";

type BounceReason = NonNullable<DeliveryReport["reason"]>;

/**
 * The bounce reasons flagpost counts as the sender's problem (never the address's): the set in
 * src/emails/bounce-classification.ts, which package.json does not export. The corpus runner
 * imports only what a user can, so it carries this copy; test/bench-dist.test.ts checks that the
 * copy equals the source, so the "sender-side permanent" count cannot drift from the policy.
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
