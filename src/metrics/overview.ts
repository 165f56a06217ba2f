import type { Clock } from "../ports/clock.js";
import type { Storage } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import type { MetricsSnapshot } from "./counters.js";

/**
 * The overview (GET /v1/overview, the dashboard's Overview page): the outbox now, sends, bounces
 * and complaints per hour over the last day, events per minute over the last hour, the webhook
 * endpoints that are failing, and this process's storage errors. Every series is zero-filled, so
 * a chart needs no gaps logic and every backend answers the same shape.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
export const OVERVIEW_HOURS = 24;
export const OVERVIEW_MINUTES = 60;
/** At most this many failing endpoints are listed; `failingMore` says when there are others. */
export const OVERVIEW_FAILING_LIMIT = 100;

export interface OverviewHour {
  /** Start of the hour, UTC. */
  hour: string;
  sent: number;
  bounced: number;
  complained: number;
}

export interface OverviewMinute {
  minute: string;
  events: number;
}

export interface OverviewFailingWebhook {
  id: string;
  /** The endpoint's URL: only for a key that may read webhooks (`full_access`). */
  endpoint?: string;
  status: "enabled" | "disabled";
  failingSince: string;
}

export interface OverviewView {
  /** When the overview was read. */
  at: string;
  /** Queued emails now (null when the storage cannot count its outbox). */
  outbox: { due: number; scheduled: number; oldestDueAt: string | null; oldestDueAgeSeconds: number } | null;
  /** The 24 hours ending with the current one, oldest first, each present even when empty. */
  emails: {
    from: string;
    to: string;
    hours: OverviewHour[];
    totals: { sent: number; bounced: number; complained: number };
  };
  /** The 60 minutes ending with the current one, oldest first, by the events' own timestamps. */
  events: { from: string; to: string; minutes: OverviewMinute[]; total: number };
  webhooks: { failing: OverviewFailingWebhook[]; failingMore: boolean };
  /** Storage calls of this process that failed since it started, by repository. */
  storageErrors: { total: number; byRepository: Record<string, number> };
}

/** `count` slots of `size` ms starting at `start`, each filled from `rows` by its start time. */
function slots<T>(start: number, count: number, size: number, rows: Map<number, T>, empty: (at: string) => T): T[] {
  return Array.from({ length: count }, (_, i) => {
    const at = start + i * size;
    return rows.get(at) ?? empty(isoFromMs(at));
  });
}

export class Overview {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #metrics: () => MetricsSnapshot;

  constructor(storage: Storage, clock: Clock, metrics: () => MetricsSnapshot) {
    this.#storage = storage;
    this.#clock = clock;
    this.#metrics = metrics;
  }

  /** The overview now; `withEndpoints` adds each failing endpoint's URL (for keys that may read webhooks). */
  async read(options: { withEndpoints?: boolean } = {}): Promise<OverviewView> {
    const now = this.#clock.now();
    const hourStart = now - (now % HOUR_MS) - (OVERVIEW_HOURS - 1) * HOUR_MS;
    const hourEnd = now - (now % HOUR_MS) + HOUR_MS;
    const minuteStart = now - (now % MINUTE_MS) - (OVERVIEW_MINUTES - 1) * MINUTE_MS;
    const minuteEnd = now - (now % MINUTE_MS) + MINUTE_MS;
    const emails = this.#storage.emails;
    const [outbox, activity, events, failing] = await Promise.all([
      emails.outboxDepth?.call(emails, now),
      this.#storage.activity.countEmailActivity(hourStart, hourEnd, HOUR_MS),
      this.#storage.activity.countEvents(minuteStart, minuteEnd, MINUTE_MS),
      this.#storage.activity.listFailingWebhooks(OVERVIEW_FAILING_LIMIT + 1),
    ]);
    const hours = slots(
      hourStart,
      OVERVIEW_HOURS,
      HOUR_MS,
      new Map(activity.map(({ start, ...counts }) => [start, { hour: isoFromMs(start), ...counts }])),
      (hour) => ({ hour, sent: 0, bounced: 0, complained: 0 }),
    );
    const minutes = slots(
      minuteStart,
      OVERVIEW_MINUTES,
      MINUTE_MS,
      new Map(events.map(({ start, count }) => [start, { minute: isoFromMs(start), events: count }])),
      (minute) => ({ minute, events: 0 }),
    );
    const sum = (field: "sent" | "bounced" | "complained") => hours.reduce((total, h) => total + h[field], 0);
    const byRepository = this.#metrics().storageErrors;
    return {
      at: isoFromMs(now),
      outbox: outbox
        ? {
            due: outbox.due,
            scheduled: outbox.scheduled,
            oldestDueAt: outbox.oldestDueAt === undefined ? null : isoFromMs(outbox.oldestDueAt),
            oldestDueAgeSeconds: outbox.oldestDueAt === undefined ? 0 : Math.max(0, (now - outbox.oldestDueAt) / 1000),
          }
        : null,
      emails: {
        from: isoFromMs(hourStart),
        to: isoFromMs(hourEnd),
        hours,
        totals: { sent: sum("sent"), bounced: sum("bounced"), complained: sum("complained") },
      },
      events: {
        from: isoFromMs(minuteStart),
        to: isoFromMs(minuteEnd),
        minutes,
        total: minutes.reduce((total, m) => total + m.events, 0),
      },
      webhooks: {
        failing: failing.slice(0, OVERVIEW_FAILING_LIMIT).map(({ id, endpoint, status, failingSince }) => ({
          id,
          ...(options.withEndpoints ? { endpoint } : {}),
          status,
          failingSince: isoFromMs(failingSince),
        })),
        failingMore: failing.length > OVERVIEW_FAILING_LIMIT,
      },
      storageErrors: {
        total: Object.values(byRepository).reduce((total, n) => total + n, 0),
        byRepository,
      },
    };
  }
}
