import type { ClaimedEmail, EmailClaimRequest, EmailRecord } from "../storage/index.js";
import { headlineOf } from "../storage/email-headline.js";

/** The stored size of each email's content (its JSON's length, as the SQL adapters measure it), computed once. */
const contentSizes = new WeakMap<object, number>();

function contentSize(record: EmailRecord): number {
  let size = contentSizes.get(record.content);
  if (size === undefined) contentSizes.set(record.content, (size = JSON.stringify(record.content).length));
  return size;
}

/** A claimed email as the port hands it out: without its content when that is larger than `max`. */
function claimed(record: EmailRecord, max: number | undefined): ClaimedEmail {
  const size = max === undefined ? 0 : contentSize(record);
  if (max === undefined || size <= max) return structuredClone(record);
  return { ...structuredClone({ ...record, content: headlineOf(record).content }), omittedContentBytes: size };
}

/**
 * claimDueEmails over the stored records, synchronously (so it is atomic in this process):
 * leases the due ones, longest-due first, that `paused` does not hold back.
 */
export function claimDueRecords(
  records: Iterable<EmailRecord>,
  { now, limit, leaseMs, owner, maxContentBytes }: EmailClaimRequest,
  paused: (record: EmailRecord) => boolean,
): ClaimedEmail[] {
  const due = [...records]
    .filter(
      (r) =>
        r.status === "queued" &&
        r.nextAttemptAt <= now &&
        (r.leaseUntil === undefined || r.leaseUntil <= now) &&
        !paused(r),
    )
    .sort((a, b) =>
      a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a.id < b.id ? -1 : 1,
    )
    .slice(0, Math.max(0, limit));
  const leaseUntil = new Date(Date.parse(now) + leaseMs).toISOString();
  for (const record of due) {
    record.leaseOwner = owner;
    record.leaseUntil = leaseUntil;
    record.attempts += 1;
  }
  return due.map((record) => claimed(record, maxContentBytes));
}
