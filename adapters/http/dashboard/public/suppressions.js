// The Suppressions page (#/suppressions): addresses flagpost no longer mails. Lists
// GET /v1/suppressions (newest first, 50 a page), adds with POST /v1/suppressions and removes with
// DELETE /v1/suppressions/{id}. Reading needs emails:read; adding and removing emails:send, and a
// key without it gets neither the form nor the buttons.

import { mailApi, keyMay } from "./mail-api.js";
import { h, show, timeElement } from "./dom.js";
import {
  cell,
  chip,
  confirmThenAct,
  emptyPanel,
  fieldError,
  openScoped,
  Page,
  pageSection,
  scopeNote,
  showScopeNote,
} from "./page-kit.js";
import { PagedList } from "./paged-list.js";

const NO_READ = "This key cannot read the suppression list: it lacks the emails:read scope.";
const NO_WRITE = "This key can read the suppression list but not change it: it lacks the emails:send scope.";
const ORIGINS = { bounce: "Hard bounce", complaint: "Complaint", manual: "Added by hand", unsubscribe: "Unsubscribed" };

/** Why a report put the address here: its reason and bounce type, then the server's words. */
function why(entry) {
  if (!entry.reason && !entry.diagnostic) return h("span", { class: "muted" }, "—");
  return h(
    "div",
    { class: "stack-tight" },
    entry.reason ? h("span", { "data-field": "reason", class: "mono" }, entry.reason) : undefined,
    entry.bounce_type
      ? h("span", { "data-field": "bounce-type", class: "muted" }, ` · ${entry.bounce_type}`)
      : undefined,
    entry.diagnostic ? h("div", { "data-field": "diagnostic", class: "hint" }, entry.diagnostic) : undefined,
  );
}

export class Suppressions extends Page {
  #list;
  #writable = false;
  #ui;

  constructor({ onError, onStatus }) {
    super({ onError, onStatus });
    const input = h("input", {
      id: "suppression-email",
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "suppression-email-error suppression-email-help",
    });
    const error = h("p", { id: "suppression-email-error", class: "field-error", hidden: true });
    const form = h(
      "form",
      { class: "panel stack inline-form", novalidate: true, hidden: true, onsubmit: (e) => this.#add(e) },
      h(
        "div",
        { class: "field" },
        h("label", { for: "suppression-email" }, "Email address"),
        input,
        error,
        h(
          "p",
          { id: "suppression-email-help", class: "hint" },
          "flagpost leaves this address out of every send until it is removed.",
        ),
      ),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button button-primary" }, "Add to list")),
    );
    const list = new PagedList({
      label: "Suppressed addresses",
      columns: ["Email", "Origin", "Because of", "Why", "Added", ""],
      moreText: "Load more addresses",
      loadingText: "Loading the suppression list…",
      empty: emptyPanel(
        "No suppressed addresses",
        "Hard bounces and complaints add addresses here by themselves; you can add one by hand too.",
      ),
      fetchPage: (page) => mailApi.listSuppressions(page),
      rows: (entry) => this.#row(entry),
      onError,
    });
    this.#list = list;
    const note = scopeNote();
    const { section, heading } = pageSection("suppressions-view", "Suppressions", {}, note, form, ...list.parts);
    this.#ui = { section, heading, note, form, input, error };
  }

  open() {
    const ui = this.#ui;
    const load = async () => {
      this.#writable = await keyMay("emails:send");
      show(ui.form, this.#writable);
      if (!this.#writable) showScopeNote(ui.note, NO_WRITE);
      await this.#list.load();
    };
    return openScoped(ui, "emails:read", { load, denied: () => this.#denied(), onError: this.onError });
  }

  #denied() {
    const ui = this.#ui;
    show(ui.form, false);
    this.#list.hide();
    showScopeNote(ui.note, NO_READ);
  }

  async #add(event) {
    event.preventDefault();
    const ui = this.#ui;
    show(ui.error, false);
    ui.input.removeAttribute("aria-invalid");
    const address = ui.input.value.trim();
    if (address === "") return this.#fieldError("Type an email address first.");
    const button = ui.form.querySelector('[type="submit"]');
    button.disabled = true;
    try {
      const added = await mailApi.addSuppression(address);
      ui.input.value = "";
      this.onStatus(`${added.email} is on the suppression list.`);
      await this.#list.load();
    } catch (error) {
      if (error.code === "validation_error") this.#fieldError(error.message);
      else this.onError(error);
    } finally {
      button.disabled = false;
    }
  }

  #fieldError(message) {
    fieldError(this.#ui.error, this.#ui.input, message);
  }

  #remove(entry, button) {
    const question = {
      title: "Remove from the suppression list?",
      text: `flagpost will mail ${entry.email} again.`,
      confirm: "Remove",
    };
    return confirmThenAct(
      button,
      question,
      async () => {
        await mailApi.removeSuppression(entry.id);
        this.onStatus(`${entry.email} was removed from the suppression list.`);
        await this.#list.load();
        this.#ui.heading.focus();
      },
      this.onError,
    );
  }

  #row(entry) {
    const remove = this.#writable
      ? h(
          "button",
          { type: "button", class: "button button-danger button-small", "aria-label": `Remove ${entry.email}` },
          "Remove",
        )
      : undefined;
    if (remove) remove.addEventListener("click", () => this.#remove(entry, remove));
    return h(
      "tr",
      { "data-email": entry.email },
      cell("Email", h("span", { class: "mono" }, entry.email)),
      cell("Origin", chip("origin", entry.origin, ORIGINS[entry.origin] ?? entry.origin)),
      cell(
        "Because of",
        entry.source_id
          ? h("a", { href: `#/emails/${encodeURIComponent(entry.source_id)}` }, "the email")
          : h("span", { class: "muted" }, "—"),
      ),
      cell("Why", why(entry)),
      cell("Added", timeElement(entry.created_at)),
      cell("", remove),
    );
  }
}
