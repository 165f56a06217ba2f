import type { DeliveryReportRepository, PageRequest, UnmatchedReportRecord } from "../ports/storage/index.js";
import { MemoryTable } from "./memory-table.js";

/** Unmatched delivery reports in memory. */
export class MemoryDeliveryReportRepository implements DeliveryReportRepository {
  readonly #unmatched = new MemoryTable<UnmatchedReportRecord>((r) => r.id);

  async recordUnmatchedReports(reports: readonly UnmatchedReportRecord[]): Promise<void> {
    this.#unmatched.insert(reports, () => "A report with that id already exists");
  }

  async listUnmatchedReports(page: PageRequest): Promise<UnmatchedReportRecord[]> {
    return this.#unmatched.page(page);
  }
}
