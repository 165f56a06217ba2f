import type { ReputationGuard } from "../domains/reputation-guard.js";
import type { BatchValidation } from "./schema.js";
import type { SuppressionPolicy } from "./suppression-policy.js";
import type { UnsubscribeLinks } from "./unsubscribe-links.js";
import type { VerifiedSenders } from "./verified-sender.js";
import type { VerpTags } from "./verp-tag.js";

/** What `send`, `sendBatch` and the EmailService's constructor take besides the request. */

export interface IdempotencyOptions {
  /** The Idempotency-Key (1–256 characters): the same key and request within 24 h do nothing new. */
  idempotencyKey?: string;
  /** Whose key it is. Over HTTP the API key's id; in process any stable string. Default "in-process". */
  idempotencyScope?: string;
}

export interface SendBatchOptions extends IdempotencyOptions {
  /** `strict` (default): one invalid email refuses the batch. `permissive`: the valid ones are sent. */
  validation?: BatchValidation;
}

export interface EmailServiceOptions {
  /** When reports suppress addresses. */
  policy: SuppressionPolicy;
  /** Checks the VERP tags reports come back to. */
  verpTags: VerpTags;
  /** Makes the List-Unsubscribe links of `unsubscribe` (docs/emails.md, "One-click unsubscribe"). */
  unsubscribeLinks: UnsubscribeLinks;
  /** Given: a send whose `from` domain is not verified is refused (`domains.requireVerified`). */
  verifiedSenders?: VerifiedSenders;
  /** Counts reports against sending domains and marks mail of paused ones (docs/domains.md). */
  reputation?: ReputationGuard;
}
