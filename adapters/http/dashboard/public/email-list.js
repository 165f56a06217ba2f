// The Emails page (#/emails): GET /v1/emails, newest first, 50 a page, each with its status chip;
// a row opens the email's timeline. Needs emails:read.

import { mailApi } from "./mail-api.js";
import { emailChip } from "./email-status.js";
import { h, show, timeElement } from "./dom.js";
import { cell, emptyPanel, openScoped, pageSection, scopeNote, showScopeNote } from "./page-kit.js";
import { PagedList } from "./paged-list.js";

const NO_SCOPE =
  "This key cannot read emails: it lacks the emails:read scope. Use a key with emails:read (or full_access) to see this page.";

export class EmailList {
  #list;
  #onError;
  #ui;

  constructor({ onError }) {
    this.#onError = onError;
    const refresh = h("button", { type: "button", class: "button", onclick: () => this.open() }, "Refresh");
    const list = new PagedList({
      label: "Emails",
      columns: ["Status", "Subject", "To", "Created"],
      moreText: "Load more emails",
      loadingText: "Loading emails…",
      empty: emptyPanel(
        "No emails yet",
        "Emails sent with POST /v1/emails (or the resend SDK pointed at flagpost) appear here, newest first.",
      ),
      fetchPage: (page) => mailApi.listEmails(page),
      rows: (email) => this.#row(email),
      onError,
      focusAdded: true,
    });
    this.#list = list;
    const note = scopeNote();
    const { section, heading } = pageSection("emails-view", "Emails", { actions: [refresh] }, note, ...list.parts);
    this.#ui = { section, heading, note, refresh };
  }

  open() {
    const load = async () => {
      await this.#list.load();
      show(this.#ui.refresh, true);
    };
    return openScoped(this.#ui, "emails:read", { load, denied: () => this.#denied(), onError: this.#onError });
  }

  #denied() {
    this.#list.items = [];
    this.#list.hide();
    show(this.#ui.refresh, false);
    showScopeNote(this.#ui.note, NO_SCOPE);
  }

  #row(email) {
    return h(
      "tr",
      { "data-id": email.id },
      cell("Status", emailChip(email)),
      cell("Subject", h("a", { href: `#/emails/${encodeURIComponent(email.id)}` }, email.subject)),
      cell("To", email.to.join(", ")),
      cell("Created", timeElement(email.created_at)),
    );
  }
}
