import type { Expression, SqlBool } from "kysely";
import type { AnyExpressionBuilder, AnyKysely } from "./dialect.js";
import type { JobTableSpec } from "./job-claims.js";

// The row conditions and changes of a claim on a jobs-shaped table (job-claims.ts describes it).

/** Column values stored by a claim: the lease, and `attempts` + 1 (each claim is one attempt). */
export function claimSet(owner: string, leaseUntil: number) {
  return (eb: AnyExpressionBuilder) => ({
    lease_owner: owner,
    lease_until: leaseUntil,
    attempts: eb("attempts", "+", 1),
  });
}

/** Whether a row is due at `at`: ready, `next_attempt_at <= at`, and free or with a lease that ended. */
export function isDue(eb: AnyExpressionBuilder, spec: JobTableSpec, at: number): Expression<SqlBool> {
  const due: Expression<SqlBool>[] = [
    eb("next_attempt_at", "<=", at),
    eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]),
  ];
  if (spec.ready) due.push(spec.ready(eb));
  return eb.and(due);
}

/** Due rows, longest-due first. */
export function dueIds(db: AnyKysely, spec: JobTableSpec, at: number, limit: number) {
  return db
    .selectFrom(spec.table)
    .select("id")
    .where((eb) => isDue(eb, spec, at))
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(limit);
}
