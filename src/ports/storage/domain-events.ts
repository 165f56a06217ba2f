import type { EpochMs } from "./instants.js";
// ---------------------------------------------------------------------------------------------
// Domain events: what a state change tells the outside world (outbound webhooks).

/**
 * Something that happened to flagpost's data, as webhook receivers see it. The service that makes
 * the change builds it; the repository write that makes the change stores it (see below).
 */
export interface DomainEvent {
  /** A UUIDv7; it becomes the `webhook-id` header of every delivery (and retry, and replay) of it. */
  id: string;
  /** `email.sent`, `flag.updated`, … (src/webhooks/event-types.ts lists them). */
  type: string;
  /** When it happened; the payload's `created_at` is its ISO-8601 text. */
  createdAt: EpochMs;
  /** The payload's `data`: for email events the resend SDK's shapes, for flags the flag. */
  data: Record<string, unknown>;
}

/**
 * How a write takes the events it causes: an intention method's `events?: readonly DomainEvent[]`,
 * or `tx.domainEvents.record` in a unit of work (unit-of-work.ts). They MUST be stored in the SAME
 * transaction as the change, and none of them when the change does not happen. Storing is what
 * "emitting" means: one webhook delivery per enabled endpoint subscribed to the event's type,
 * nothing when no endpoint is. There is no other way to emit an event for a state change.
 */
