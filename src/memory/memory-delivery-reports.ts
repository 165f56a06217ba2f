import { FlagpostError } from "../errors.js";
import type { DeliveryReportRepository, PageRequest, UnmatchedReportRecord } from "../storage/index.js";
import { pageOf } from "./memory-webhook-state.js";

/** Unmatched delivery reports in memory. */
export class MemoryDeliveryReportRepository implements DeliveryReportRepository {
  readonly #unmatched = new Map<string, UnmatchedReportRecord>();

  async recordUnmatchedReports(reports: readonly UnmatchedReportRecord[]): Promise<void> {
    const ids = new Set(reports.map((r) => r.id));
    if (ids.size < reports.length || reports.some((r) => this.#unmatched.has(r.id)))
      throw new FlagpostError("conflict", "A report with that id already exists");
    for (const report of reports) this.#unmatched.set(report.id, structuredClone(report));
  }

  async listUnmatchedReports(page: PageRequest): Promise<UnmatchedReportRecord[]> {
    return pageOf([...this.#unmatched.values()], (r) => r.id, page);
  }
}
