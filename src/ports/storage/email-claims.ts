import type { ClaimedEmail, EmailOutcomeWrite } from "./emails.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// The worker's round trip to the outbox in one write: the outcomes of the emails it sent and the
// claim of the next due ones (issue 30). EmailRepository extends it.

/** The claim {@link EmailClaimStore.recordOutcomesAndClaim} makes: claimDueEmails' arguments. */
export interface EmailClaimRequest {
  now: EpochMs;
  limit: number;
  leaseMs: number;
  owner: string;
  /** As claimDueEmails' `options.maxContentBytes`. */
  maxContentBytes?: number;
}

/** {@link EmailClaimStore.recordOutcomesAndClaim}'s answer. */
export interface RecordedOutcomesAndClaim {
  /** Whether each outcome applied, in the order given (as recordOutcomes answers). */
  applied: boolean[];
  /** The emails the claim leased, as claimDueEmails returns them. */
  claimed: ClaimedEmail[];
}

export interface EmailClaimStore {
  /**
   * recordOutcomes(`outcomes`), then claimDueEmails with `claim`'s arguments, in one transaction
   * (one commit): a worker's write of what it sent also takes what it sends next. The outcomes
   * apply first, so an email they finish is not claimed, and everything recordOutcomes and
   * claimDueEmails promise holds (conditions, leases, `attempts` + 1, each email to one of
   * concurrent callers). All or nothing: when the write fails or is lost (a rollback, a crash
   * before the commit), no outcome is applied and no email claimed, so the sent emails stay
   * leased to the worker (sent again with the same Message-ID once the lease ends) and the due
   * ones stay due.
   */
  recordOutcomesAndClaim(
    outcomes: readonly EmailOutcomeWrite[],
    claim: EmailClaimRequest,
  ): Promise<RecordedOutcomesAndClaim>;
}
