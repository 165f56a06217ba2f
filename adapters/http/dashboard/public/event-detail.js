// The detail of one email event as the timeline shows it: what a delivery report or a send
// attempt said, in words (recipient, reason, bounce type, status, the server's diagnostic),
// a bounce with each bounced recipient, refusals at RCPT one per line; JSON only for what has no
// better form.

import { h } from "./dom.js";

const LABELS = {
  source: "Source",
  recipient: "Recipient",
  action: "Action",
  reason: "Reason",
  bounce_type: "Type",
  sub_type: "Sub-type",
  status: "Status",
  reply_code: "Reply code",
  command: "Command",
  diagnostic: "Diagnostic",
  feedback_type: "Feedback type",
  reported_at: "Reported at",
};

const joined = (parts) => parts.filter((p) => p !== undefined && p !== null && p !== "").join(" · ");

/** One bounced recipient or refusal: address, then reason and type, then the server's words. */
function recipientLine(email, reason, type, status, words) {
  return h(
    "li",
    { "data-recipient": email },
    h("span", { class: "mono" }, email),
    " — ",
    h("span", { "data-field": "reason" }, joined([reason, type, status])),
    words ? h("div", { "data-field": "diagnostic", class: "hint" }, words) : undefined,
  );
}

function bounceView(bounce) {
  return h(
    "div",
    { class: "stack-tight", "data-field": "bounce" },
    h("span", {}, joined([bounce.type, bounce.subType, bounce.reason])),
    Array.isArray(bounce.recipients) && bounce.recipients.length > 0
      ? h(
          "ul",
          { class: "plain-list" },
          bounce.recipients.map((r) => recipientLine(r.email, r.reason, undefined, r.status, r.diagnostic)),
        )
      : bounce.message
        ? h("div", { class: "hint" }, bounce.message)
        : undefined,
  );
}

function refusalsView(rejected) {
  return h(
    "ul",
    { class: "plain-list", "data-field": "rejected" },
    rejected.map((r) =>
      recipientLine(
        String(r.recipient),
        r.reason,
        r.bounce_type ?? (r.permanent ? undefined : "temporary"),
        r.status,
        r.response,
      ),
    ),
  );
}

function valueView(name, value) {
  if (name === "bounce" && value && typeof value === "object") return bounceView(value);
  if (name === "rejected" && Array.isArray(value)) return refusalsView(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(", ");
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  return h("code", {}, JSON.stringify(value));
}

/** The event's detail as a list of labelled values, the report's own words first. */
export function eventDetail(detail) {
  const names = Object.keys(detail);
  const ordered = [...Object.keys(LABELS).filter((n) => n in detail), ...names.filter((n) => !(n in LABELS))];
  return h(
    "dl",
    { class: "meta detail-list" },
    ordered.flatMap((name) => [
      h("dt", {}, LABELS[name] ?? (name === "bounce" ? "Bounce" : name === "rejected" ? "Refused" : name)),
      h("dd", { "data-field": name.replaceAll("_", "-") }, valueView(name, detail[name])),
    ]),
  );
}

/** A bounced email's bounce in one line for its facts: type, reason and the lead message. */
export function bounceFact(bounce) {
  return bounceView(bounce);
}
