import type { DeliveryReport } from "../../emails/reports.js";
import type { PageRequest } from "./webhooks.js";
import type { EpochMs } from "./instants.js";

// ---------------------------------------------------------------------------------------------
// Delivery reports that matched no email: kept, so nothing a mail system told flagpost is lost

export interface UnmatchedReportRecord {
  /** A UUIDv7. */
  id: string;
  receivedAt: EpochMs;
  /** Why it matched nothing, for people (`no email has this id, Message-ID or provider id`). */
  reason: string;
  report: DeliveryReport;
}

export interface DeliveryReportRepository {
  /** Stores these reports (one transaction). An id that exists → `FlagpostError("conflict")`, and none is stored. */
  recordUnmatchedReports(reports: readonly UnmatchedReportRecord[]): Promise<void>;
  /** Up to `page.limit` unmatched reports, newest first (id descending), paged by id. */
  listUnmatchedReports(page: PageRequest): Promise<UnmatchedReportRecord[]>;
}
