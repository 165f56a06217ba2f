import { z } from "zod";
import type { Clock } from "../ports/clock.js";
import { FlagpostError, notFound } from "../errors.js";
import { isStorableText } from "../input-policy.js";
import type { EmailRecord, EpochMs, Storage } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import { parseInput } from "../validation.js";
import { applyTransition } from "./lifecycle.js";
import { instantSchema, scheduleProblem } from "./instants.js";
import { type EmailEventRequest, emailEventSchema } from "./schema.js";
import { type EmailView, toView } from "./views.js";
import { emailDomainEvent, transitionDomainEvents } from "./webhook-events.js";

/** How far in the future a report's `occurred_at` may be (clock skew between systems). */
const MAX_REPORT_AHEAD_MS = 24 * 60 * 60 * 1000;
/** A change tried this often when the email changes between reading it and storing the change. */
const ROUNDS = 3;

const updateSchema = z.strictObject({ scheduled_at: instantSchema });
/** What `update` accepts (the JSON body of PATCH /v1/emails/{id}). */
export type UpdateEmailRequest = z.input<typeof updateSchema>;

/** What a report says went wrong, for the `bounce.message` / `failed.reason` of its webhook. */
function reportReason(detail: Record<string, unknown>): string {
  for (const key of ["message", "reason", "error", "diagnostic"])
    if (typeof detail[key] === "string") return detail[key];
  return "";
}

/**
 * Changes to one email asked for by a caller: a delivery report by hand, and Resend's update
 * (`scheduled_at`) and cancel of a scheduled email that no worker has claimed. Each is one
 * conditional write, tried again when the email changed between reading and writing.
 */
export class EmailChanges {
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  /**
   * A delivery report by hand along the lifecycle: `invalid_transition` (422) when the email's
   * status does not allow it, and then nothing changes. `detail` may be an object or a string
   * (stored as `{message}`).
   */
  async recordEvent(id: string, report: EmailEventRequest): Promise<EmailView> {
    const input = parseInput(emailEventSchema, report);
    const now = this.#clock.now();
    let at = now;
    if (input.occurred_at != null) {
      const ms = input.occurred_at;
      if (ms > now + MAX_REPORT_AHEAD_MS) {
        throw new FlagpostError("validation_error", '"occurred_at" must not be more than 24 hours in the future', {
          details: [{ path: "occurred_at", message: "must not be more than 24 hours in the future" }],
        });
      }
      at = ms;
    }
    const given = typeof input.detail === "string" ? { message: input.detail } : (input.detail ?? {});
    return this.#retrying(id, async (email) => {
      const change = applyTransition(email, input.type, at);
      if (!change.ok) throw new FlagpostError("invalid_transition", change.reason);
      return this.#storage.emails.transitionEmail(id, {
        from: [email.status],
        to: change.status,
        ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
        ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
        event: { type: input.type, at, detail: { source: "report", ...given } },
        events: transitionDomainEvents(email, change.status, now, reportReason(given)),
      });
    });
  }

  /** Cancels a scheduled email nobody has claimed: `canceled`, with its event; else `invalid_transition`. */
  async cancel(id: string): Promise<EmailView> {
    return this.#retrying(id, async (email) => {
      const now = this.#clock.now();
      this.#checkScheduled(email, "canceled", now);
      return this.#storage.emails.transitionEmail(id, {
        from: ["queued"],
        to: "canceled",
        unleasedAt: now,
        event: { type: "canceled", at: now },
      });
    });
  }

  /** Moves a scheduled email nobody has claimed to a new `scheduled_at` (future, ≤ 30 days ahead). */
  async update(id: string, request: UpdateEmailRequest): Promise<EmailView> {
    const input = parseInput(updateSchema, request);
    const nowMs = this.#clock.now();
    const problem = scheduleProblem(input.scheduled_at, nowMs);
    if (problem)
      throw new FlagpostError("validation_error", `"scheduled_at" ${problem}`, {
        details: [{ path: "scheduled_at", message: problem }],
      });
    const scheduledAt = input.scheduled_at;
    return this.#retrying(id, async (email) => {
      this.#checkScheduled(email, "rescheduled", nowMs);
      return this.#storage.emails.rescheduleEmail(id, {
        scheduledAt,
        unleasedAt: nowMs,
        event: { type: "scheduled", at: nowMs, detail: { scheduled_at: isoFromMs(scheduledAt) } },
        events: [emailDomainEvent("email.scheduled", { ...email, scheduledAt }, nowMs)],
      });
    });
  }

  /** Only a queued, scheduled email that no worker holds can be canceled or rescheduled. */
  #checkScheduled(email: EmailRecord, what: string, now: EpochMs): void {
    if (email.status !== "queued")
      throw new FlagpostError("invalid_transition", `An email that is ${email.status} cannot be ${what}`);
    if (email.scheduledAt === undefined)
      throw new FlagpostError("invalid_transition", `Only a scheduled email can be ${what}; this one was sent at once`);
    if (email.leaseUntil !== undefined && email.leaseUntil > now)
      throw new FlagpostError("invalid_transition", `The email is being sent and can no longer be ${what}`);
  }

  async #retrying(id: string, write: (email: EmailRecord) => Promise<EmailRecord | undefined>): Promise<EmailView> {
    for (let round = 0; round < ROUNDS; round += 1) {
      const email = isStorableText(id) ? await this.#storage.emails.getEmail(id) : undefined;
      if (!email) throw notFound("Email", id);
      const stored = await write(email);
      if (stored) return toView(stored);
      // The email changed between reading and writing (a worker claimed or recorded it): read again.
    }
    throw new FlagpostError("unavailable", `Email "${id}" kept changing while it was updated; try again`);
  }
}
