import type { Migration } from "kysely";
import { initialMigration } from "./0001-initial.js";
import { eventsMigration } from "./0002-events.js";
import { emailsMigration } from "./0003-emails.js";
import { flagNotifyMigration } from "./0004-flag-notify.js";
import { webhooksMigration } from "./0008-webhooks.js";
import { flagGovernanceMigration } from "./0009-flag-governance.js";
import { flagVariantsMigration } from "./0010-flag-variants.js";
import { experimentIndexMigration } from "./0010-results-index.js";
import { deliverabilityMigration } from "./0012-deliverability.js";
import { emailSummaryMigration } from "./0012-email-summary.js";
import { flagSchedulesMigration } from "./0014-flag-schedules.js";
import { rateLimitsMigration } from "./0016-rate-limits.js";
import { compactEventsMigration } from "./0017-compact-events.js";
import { reportPolicyMigration } from "./0018-report-policy.js";

/**
 * The migration history before the baseline (issue 26), in the order kysely ran it on a fresh
 * database (by name). It is frozen: the baseline replays it, and a database that ran part or all
 * of it finishes it and is then recorded as having run the baseline.
 */
export const LEGACY_STEPS: Readonly<Record<string, Migration>> = {
  "0001-initial": initialMigration,
  "0002-events": eventsMigration,
  "0003-emails": emailsMigration,
  "0004-flag-notify": flagNotifyMigration,
  "0008-webhooks": webhooksMigration,
  "0009-flag-governance": flagGovernanceMigration,
  "0010-flag-variants": flagVariantsMigration,
  "0010-results-index": experimentIndexMigration,
  "0012-deliverability": deliverabilityMigration,
  "0012-email-summary": emailSummaryMigration,
  "0014-flag-schedules": flagSchedulesMigration,
  "0016-rate-limits": rateLimitsMigration,
  "0017-compact-events": compactEventsMigration,
  "0018-report-policy": reportPolicyMigration,
};
