// The Emails page (#/emails): GET /v1/emails, newest first, 50 a page, each with its status chip;
// a row opens the email's timeline. Needs emails:read.

import { mailApi, keyMay } from "./mail-api.js";
import { emailChip } from "./email-status.js";
import { h, show, timeElement } from "./dom.js";
import { cell, dataTable, isRestricted, pageSection, scopeNote, showScopeNote } from "./page-kit.js";

const NO_SCOPE =
  "This key cannot read emails: it lacks the emails:read scope. Use a key with emails:read (or full_access) to see this page.";

export class EmailList {
  #emails = [];
  #hasMore = false;
  #onError;
  #ui;

  constructor({ onError }) {
    this.#onError = onError;
    const refresh = h("button", { type: "button", class: "button", onclick: () => this.open() }, "Refresh");
    const { table, body } = dataTable("Emails", ["Status", "Subject", "To", "Created"]);
    const more = h(
      "button",
      { type: "button", class: "button", hidden: true, onclick: () => this.#more() },
      "Load more emails",
    );
    const empty = h(
      "div",
      { class: "panel empty", hidden: true },
      h("h2", {}, "No emails yet"),
      h("p", {}, "Emails sent with POST /v1/emails (or the resend SDK pointed at flagpost) appear here, newest first."),
    );
    const note = scopeNote();
    const loading = h("p", { class: "hint", hidden: true }, "Loading emails…");
    const { section, heading } = pageSection(
      "emails-view",
      "Emails",
      { actions: [refresh] },
      note,
      loading,
      empty,
      table,
      h("div", { class: "actions" }, more),
    );
    this.#ui = { section, heading, table, body, more, empty, note, loading, refresh };
  }

  async open() {
    const ui = this.#ui;
    ui.heading.focus();
    showScopeNote(ui.note, "");
    try {
      if (!(await keyMay("emails:read"))) return this.#denied();
      show(ui.loading, this.#emails.length === 0);
      const page = await mailApi.listEmails();
      this.#emails = page.data;
      this.#hasMore = page.has_more;
      this.#render();
    } catch (error) {
      if (isRestricted(error)) this.#denied();
      else this.#onError(error);
    } finally {
      show(ui.loading, false);
    }
  }

  #denied() {
    const ui = this.#ui;
    this.#emails = [];
    for (const el of [ui.table, ui.more, ui.empty, ui.refresh]) show(el, false);
    showScopeNote(ui.note, NO_SCOPE);
  }

  async #more() {
    const ui = this.#ui;
    ui.more.disabled = true;
    try {
      const page = await mailApi.listEmails({ after: this.#emails.at(-1)?.id });
      this.#emails.push(...page.data);
      this.#hasMore = page.has_more;
      this.#render();
      ui.body.children[ui.body.children.length - page.data.length]?.querySelector("a")?.focus();
    } catch (error) {
      this.#onError(error);
    } finally {
      ui.more.disabled = false;
    }
  }

  #render() {
    const ui = this.#ui;
    show(ui.refresh, true);
    show(ui.empty, this.#emails.length === 0);
    show(ui.table, this.#emails.length > 0);
    show(ui.more, this.#hasMore);
    ui.body.replaceChildren(
      ...this.#emails.map((email) =>
        h(
          "tr",
          { "data-id": email.id },
          cell("Status", emailChip(email)),
          cell("Subject", h("a", { href: `#/emails/${encodeURIComponent(email.id)}` }, email.subject)),
          cell("To", email.to.join(", ")),
          cell("Created", timeElement(email.created_at)),
        ),
      ),
    );
  }
}
