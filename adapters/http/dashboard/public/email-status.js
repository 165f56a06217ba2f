// What one chip says about an email. `status` is one of queued, sent, delivered, bounced,
// complained, failed, canceled (docs/emails.md); three more states live in `last_event` and
// `failure_reason`: a queued email waiting for its time (scheduled), one whose last attempt
// failed for now (delivery_delayed), and one not sent because every recipient is suppressed.

import { chip } from "./page-kit.js";

const LABELS = {
  queued: "Queued",
  scheduled: "Scheduled",
  sent: "Sent",
  delivered: "Delivered",
  delivery_delayed: "Delivery delayed",
  bounced: "Bounced",
  complained: "Complained",
  failed: "Failed",
  canceled: "Canceled",
  suppressed: "Suppressed",
};

export function emailState(email) {
  const { status, last_event: last } = email;
  if (status === "queued" && last === "scheduled") return "scheduled";
  if ((status === "queued" || status === "sent") && last === "delivery_delayed") return "delivery_delayed";
  if (status === "failed" && (email.failure_reason === "suppressed" || last === "suppressed")) return "suppressed";
  return status;
}

/** The chip of an email; its title keeps the API's own words (status, last event, reason). */
export function emailChip(email) {
  const state = emailState(email);
  const title = [
    `status: ${email.status}`,
    email.last_event ? `last event: ${email.last_event}` : "",
    email.failure_reason ? `reason: ${email.failure_reason}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return chip("email", state, LABELS[state] ?? state, title);
}

/** A chip for one event of the timeline (event types are the statuses plus three). */
export function eventChip(type) {
  return chip("event", type, LABELS[type] ?? type);
}
