// ---------------------------------------------------------------------------------------------
// The reputation guard's part of the outbox (docs/domains.md, "Reputation guard"): the marks
// reports leave on emails and the count over a domain's last sends. EmailRepository extends it.

export type ReputationMark = "bounce" | "complaint";

export interface DomainReputationCounts {
  sends: number;
  bounces: number;
  complaints: number;
}

/**
 * Also part of the claim (EmailRepository.claimDueEmails): a queued email whose sending domain
 * (`sendingDomainOf` its `from`) is a stored domain with `pausedAt` set is not due; it waits for
 * the domain's resume.
 */
export interface EmailReputationStore {
  /**
   * Marks the email as a reputation signal of its sending domain: `bounce` (a Permanent bounce
   * was reported) or `complaint`. A complaint replaces a bounce mark, never the other way round.
   * Nothing happens for an unknown id.
   */
  markEmailReputation(id: string, mark: ReputationMark): Promise<void>;

  /**
   * Among the last `window` emails sent from `domain` (the lower-cased ASCII domain of their
   * `from` address, as `sendingDomainOf` in src/domains/reputation-window.ts gives it; emails
   * with a `sentAt`, newest `sentAt` first, then id): how many there are and how many carry each
   * mark.
   */
  domainReputation(domain: string, window: number): Promise<DomainReputationCounts>;
}
