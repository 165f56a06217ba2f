import type { EmailClaimRequest } from "../../../src/ports/storage/email-claims.js";
import type { EmailOutcomeWrite } from "../../../src/ports/storage/emails.js";
import type { MailTransport, OutgoingMessage } from "../../../src/ports/transport.js";
import type { SendEmailRequest } from "../../../src/emails/index.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import { memoryStorage } from "../../../src/memory/index.js";

// A transport and a storage the outbox worker tests drive by hand.

export const request = (i: number): SendEmailRequest => ({
  from: "Flagpost <hello@example.com>",
  to: `u${i}@example.org`,
  subject: `Hi ${i}`,
  text: "Hello",
});

/** A transport whose sends finish when the test says so; `mostAtOnce` is the most sends it had open together. */
export function gatedTransport() {
  const waiting: { message: OutgoingMessage; finish(): void }[] = [];
  const sent: string[] = [];
  let mostAtOnce = 0;
  const transport: MailTransport = {
    name: "gated",
    send: (message) =>
      new Promise((resolve) => {
        mostAtOnce = Math.max(mostAtOnce, waiting.length + 1);
        waiting.push({
          message,
          finish: () => {
            sent.push(message.messageId);
            resolve({
              status: "sent",
              messageId: message.messageId,
              accepted: message.to.map((a) => a.address),
              rejected: [],
            });
          },
        });
      }),
  };
  return {
    transport,
    waiting,
    sent,
    mostAtOnce: () => mostAtOnce,
    finishAll: () => waiting.splice(0).forEach((w) => w.finish()),
  };
}

/**
 * Memory storage that records each claim and each write of outcomes, and can hold or fail the next
 * writes. A write is in `writes` (its outcomes); one that claimed along is also in `claimsAlong`
 * (how many emails it claimed).
 */
export function watchedStorage() {
  const storage = memoryStorage();
  const writes: number[] = [];
  const claims: number[] = [];
  const claimsAlong: number[] = [];
  let hold: Promise<void> | undefined;
  let failures = 0;
  const emails = storage.emails;
  const watched: Storage = {
    ...storage,
    emails: {
      getEmail: emails.getEmail.bind(emails),
      listEmails: emails.listEmails.bind(emails),
      rescheduleEmail: emails.rescheduleEmail.bind(emails),
      findEmailByProviderMessageId: emails.findEmailByProviderMessageId.bind(emails),
      insertEmails: emails.insertEmails.bind(emails),
      async claimDueEmails(...args: Parameters<typeof emails.claimDueEmails>) {
        const claimed = await emails.claimDueEmails(...args);
        claims.push(claimed.length);
        return claimed;
      },
      transitionEmail: emails.transitionEmail.bind(emails),
      scheduleRetry: emails.scheduleRetry.bind(emails),
      listEmailEvents: emails.listEmailEvents.bind(emails),
      renewEmailLeases: emails.renewEmailLeases.bind(emails),
      listEmailLeaseOwners: emails.listEmailLeaseOwners.bind(emails),
      releaseEmailLeases: emails.releaseEmailLeases.bind(emails),
      markEmailReputation: emails.markEmailReputation.bind(emails),
      domainReputation: emails.domainReputation.bind(emails),
      async recordOutcomes(outcomes: readonly EmailOutcomeWrite[]) {
        writes.push(outcomes.length);
        if (hold) await hold;
        if (failures > 0) {
          failures -= 1;
          throw new Error("database is locked");
        }
        return emails.recordOutcomes(outcomes);
      },
      async recordOutcomesAndClaim(outcomes: readonly EmailOutcomeWrite[], claim: EmailClaimRequest) {
        writes.push(outcomes.length);
        if (hold) await hold;
        if (failures > 0) {
          failures -= 1;
          throw new Error("database is locked");
        }
        const result = await emails.recordOutcomesAndClaim(outcomes, claim);
        claimsAlong.push(result.claimed.length);
        return result;
      },
    },
  };
  return {
    storage: watched,
    writes,
    claims,
    claimsAlong,
    holdWrites() {
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      return () => {
        hold = undefined;
        release();
      };
    },
    failNextWrites(n: number) {
      failures = n;
    },
  };
}
