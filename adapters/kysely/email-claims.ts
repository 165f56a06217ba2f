import type { ClaimedEmail, EmailClaimRequest, EmailRecord } from "../../src/ports/storage/index.js";
import { checkedEpochMs } from "../../src/time.js";
import type { AnyKysely, Engine } from "./dialect.js";
import { CLAIMABLE_OUTBOX } from "./domain-reputation.js";
import { claimColumns, type ClaimRow, type Db, type EmailRow, toClaimed, toRecord } from "./email-rows.js";
import { claimDueRows, claimDueRowsIn } from "./job-claims.js";

/**
 * claimDueEmails (src/ports/storage/emails.ts): on its own, with a commit of its own (`within` false,
 * `db` the storage's Kysely), or as part of the transaction `db` is (`within` true: the claim
 * that rides on a worker's outcomes, recordOutcomesAndClaim). Returns the claimed emails
 * longest-due first.
 */
export async function claimEmails(
  db: Db,
  engine: Engine,
  claim: EmailClaimRequest,
  within: boolean,
): Promise<ClaimedEmail[]> {
  const at = checkedEpochMs(claim.now, "now");
  if (claim.limit <= 0) return [];
  const max = claim.maxContentBytes;
  const rows = await (within ? claimDueRowsIn : claimDueRows)<EmailRow | ClaimRow>(
    db as unknown as AnyKysely,
    engine,
    CLAIMABLE_OUTBOX,
    at,
    claim.limit,
    at + claim.leaseMs,
    claim.owner,
    max === undefined
      ? undefined
      : {
          key: "email headline",
          build: (bind) => claimColumns(bind("maxContentBytes")),
          values: { maxContentBytes: max },
        },
  );
  const claimed = max === undefined ? await wholeRecords(db, rows as EmailRow[]) : (rows as ClaimRow[]).map(toClaimed);
  return claimed.sort((a, b) =>
    a.nextAttemptAt < b.nextAttemptAt ? -1 : a.nextAttemptAt > b.nextAttemptAt ? 1 : a.id < b.id ? -1 : 1,
  );
}

/** Records of whole rows, one after another: a sliced content is read back one email at a time. */
async function wholeRecords(db: Db, rows: readonly EmailRow[]): Promise<EmailRecord[]> {
  const records: EmailRecord[] = [];
  for (const row of rows) records.push(await toRecord(db, row));
  return records;
}
