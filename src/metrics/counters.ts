/**
 * The plain counters behind `GET /metrics` and `fp.metrics()` (docs/operations.md, issue 29).
 * Core code only adds to numbers here (no clock read, no allocation on the flag hot path); an
 * adapter (adapters/http/metrics.ts) reads them at scrape time. Every map is bounded: its keys
 * come from small fixed sets (statuses, outcomes, bounce types), except flag keys, which are
 * capped at `maxFlagKeys` and then counted under `__other__`.
 */

export const OTHER_FLAGS = "__other__";
export const DEFAULT_MAX_FLAG_KEYS = 200;

/** A snapshot of every counter since the process started (`fp.metrics()`). */
export interface MetricsSnapshot {
  /** Email status changes that were stored, by the event type: sent, delivered, bounced, complained, failed, suppressed, delivery_delayed, … */
  emailEvents: Record<string, number>;
  /** Bounces by type (`Permanent`, `Transient`, `Undetermined`). */
  bounces: Record<string, number>;
  /** Addresses added to the suppression list (by hand or by reports). */
  suppressionsAdded: number;
  /** Webhook delivery outcomes that were stored, by outcome: success, retry, failed. */
  webhookDeliveries: Record<string, number>;
  /** Events stored (through `track`, `trackBatch` or the event buffer). */
  eventsAccepted: number;
  /** Flag evaluations by flag key, up to `maxFlagKeys` keys, the rest under `__other__`. */
  flagEvaluations: Record<string, number>;
  /** Storage calls that failed, by repository (`emails`, `events`, …). */
  storageErrors: Record<string, number>;
}

function add(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

export class MetricsCounters {
  readonly emailEvents = new Map<string, number>();
  readonly bounces = new Map<string, number>();
  readonly webhookDeliveries = new Map<string, number>();
  readonly flagEvaluations = new Map<string, number>();
  readonly storageErrors = new Map<string, number>();
  suppressionsAdded = 0;
  eventsAccepted = 0;
  /** Pulls counts that are kept elsewhere (the flag client's evaluation counts) in before a read. */
  beforeRead: (() => void) | undefined;

  constructor(readonly maxFlagKeys = DEFAULT_MAX_FLAG_KEYS) {}

  emailEvent(type: string, bounceType?: string): void {
    add(this.emailEvents, type);
    if (type === "bounced") add(this.bounces, bounceType ?? "Undetermined");
  }

  webhookDelivery(outcome: string): void {
    add(this.webhookDeliveries, outcome);
  }

  storageError(repository: string): void {
    add(this.storageErrors, repository);
  }

  evaluations(flagKey: string, count: number): void {
    const key =
      this.flagEvaluations.has(flagKey) || this.flagEvaluations.size < this.maxFlagKeys ? flagKey : OTHER_FLAGS;
    add(this.flagEvaluations, key, count);
  }

  snapshot(): MetricsSnapshot {
    this.beforeRead?.();
    return {
      emailEvents: Object.fromEntries(this.emailEvents),
      bounces: Object.fromEntries(this.bounces),
      suppressionsAdded: this.suppressionsAdded,
      webhookDeliveries: Object.fromEntries(this.webhookDeliveries),
      eventsAccepted: this.eventsAccepted,
      flagEvaluations: Object.fromEntries(this.flagEvaluations),
      storageErrors: Object.fromEntries(this.storageErrors),
    };
  }
}
