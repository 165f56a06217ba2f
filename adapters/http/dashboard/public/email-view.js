// One email (#/emails/{id}): what GET /v1/emails/{id} answers, and its history from
// GET /v1/emails/{id}/events as a timeline, oldest first, each event with its detail in words
// (event-detail.js: a report's reason, bounce type and diagnostic; a bounce's recipients).
// The bodies are shown as source text: HTML from an email is never rendered here.

import { mailApi, keyMay } from "./mail-api.js";
import { emailChip, eventChip } from "./email-status.js";
import { h, show, timeElement } from "./dom.js";
import { isRestricted, pageSection, scopeNote, showScopeNote } from "./page-kit.js";
import { bounceFact, eventDetail } from "./event-detail.js";

const NO_SCOPE = "This key cannot read emails: it lacks the emails:read scope.";

const addresses = (value) => (Array.isArray(value) ? value.join(", ") : value);

/** The email's fields that are set, in reading order, as [label, content]. */
function facts(email) {
  const rows = [
    ["Status", emailChip(email)],
    ["From", email.from],
    ["To", addresses(email.to)],
    ["Cc", email.cc && addresses(email.cc)],
    ["Bcc", email.bcc && addresses(email.bcc)],
    ["Reply-To", email.reply_to && addresses(email.reply_to)],
    ["Created", timeElement(email.created_at)],
    ["Scheduled for", email.scheduled_at && timeElement(email.scheduled_at)],
    ["Sent", email.sent_at && timeElement(email.sent_at)],
    ["Delivered", email.delivered_at && timeElement(email.delivered_at)],
    ["Failure reason", email.failure_reason],
    ["Bounce", email.bounce && bounceFact(email.bounce)],
    ["Last event", email.last_event],
    ["Message-ID", email.message_id && h("code", {}, email.message_id)],
    ["Tags", email.tags?.length ? email.tags.map((t) => `${t.name}=${t.value}`).join(", ") : undefined],
    ["ID", h("code", {}, email.id)],
  ];
  return rows.filter(([, content]) => content !== undefined && content !== "");
}

export class EmailView {
  #onError;
  #ui;
  #opened;

  constructor({ onError }) {
    this.#onError = onError;
    const note = scopeNote();
    const loading = h("p", { class: "hint", hidden: true }, "Loading email…");
    const missing = h("div", { class: "panel", hidden: true });
    const meta = h("dl", { class: "meta email-meta" });
    const timeline = h("ol", { class: "timeline", "aria-labelledby": "email-timeline-title" });
    const bodies = h("div", { class: "stack" });
    const body = h(
      "div",
      { class: "email-layout", hidden: true },
      h("section", { class: "panel stack", "aria-label": "Email" }, meta, bodies),
      h("section", { class: "panel stack" }, h("h2", { id: "email-timeline-title" }, "Timeline"), timeline),
    );
    const { section, heading } = pageSection(
      "email-view",
      "Email",
      { crumb: { href: "#/emails", text: "← All emails" } },
      note,
      loading,
      missing,
      body,
    );
    this.#ui = { section, heading, note, loading, missing, meta, timeline, bodies, body };
  }

  async open(id) {
    const ui = this.#ui;
    this.#opened = id;
    ui.heading.textContent = "Email";
    ui.heading.focus();
    showScopeNote(ui.note, "");
    show(ui.missing, false);
    show(ui.body, false);
    show(ui.loading, true);
    try {
      if (!(await keyMay("emails:read"))) return showScopeNote(ui.note, NO_SCOPE);
      const [email, events] = await Promise.all([mailApi.getEmail(id), mailApi.emailEvents(id)]);
      if (this.#opened !== id) return;
      this.#render(email, events);
    } catch (error) {
      if (isRestricted(error)) showScopeNote(ui.note, NO_SCOPE);
      else if (error.code === "not_found") {
        ui.heading.textContent = "Email not found";
        ui.missing.replaceChildren(h("p", {}, `No email has the id ${id}.`));
        show(ui.missing, true);
      } else this.#onError(error);
    } finally {
      show(ui.loading, false);
    }
  }

  #render(email, events) {
    const ui = this.#ui;
    ui.heading.textContent = email.subject;
    ui.meta.replaceChildren(...facts(email).flatMap(([label, content]) => [h("dt", {}, label), h("dd", {}, content)]));
    ui.bodies.replaceChildren(
      ...[
        ["Text body", email.text],
        ["HTML body (source)", email.html],
      ]
        .filter(([, text]) => text)
        .map(([label, text]) => h("details", { class: "email-body" }, h("summary", {}, label), h("pre", {}, text))),
    );
    ui.timeline.replaceChildren(
      ...events.map((event) =>
        h(
          "li",
          { class: "timeline-item", "data-type": event.type },
          h("div", { class: "timeline-head" }, eventChip(event.type), timeElement(event.occurred_at)),
          event.detail && Object.keys(event.detail).length > 0 ? eventDetail(event.detail) : undefined,
        ),
      ),
    );
    show(ui.body, true);
  }
}
