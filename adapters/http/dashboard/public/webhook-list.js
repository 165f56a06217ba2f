// The Webhooks page (#/webhooks): the endpoints of GET /v1/webhooks, a form that creates one
// (POST /v1/webhooks, its signing secret shown once here) and Delete (DELETE /v1/webhooks/{id}).
// An endpoint's deliveries are on its own page (webhook-view.js). Every webhook route needs
// full_access (docs/api.md), so any other key sees a note instead.

import { mailApi } from "./mail-api.js";
import { h, show, timeElement } from "./dom.js";
import {
  cell,
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
import { endpointChip, eventCheckboxes } from "./webhook-settings.js";

export const NO_WEBHOOK_SCOPE =
  "This key cannot manage webhooks: every webhook route needs the full_access scope. Use a full_access key to see this page.";

function eventBoxes() {
  return h(
    "fieldset",
    { class: "event-boxes", "aria-describedby": "webhook-events-error" },
    h("legend", {}, "Events"),
    eventCheckboxes(),
    h("p", { id: "webhook-events-error", class: "field-error", hidden: true }),
  );
}

export class WebhookList extends Page {
  #list;
  #ui;

  constructor({ onError, onStatus }) {
    super({ onError, onStatus });
    const endpoint = h("input", {
      id: "webhook-endpoint",
      type: "text",
      inputmode: "url",
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "https://example.com/hooks/flagpost",
      "aria-describedby": "webhook-endpoint-error",
    });
    const endpointError = h("p", { id: "webhook-endpoint-error", class: "field-error", hidden: true });
    const boxes = eventBoxes();
    const form = h(
      "form",
      { class: "panel stack", novalidate: true, hidden: true, onsubmit: (e) => this.#create(e) },
      h("h2", {}, "New endpoint"),
      h("div", { class: "field" }, h("label", { for: "webhook-endpoint" }, "Endpoint URL"), endpoint, endpointError),
      boxes,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit", class: "button button-primary" }, "Create endpoint"),
      ),
    );
    const secret = h("div", { class: "notice notice-ok stack", role: "status", hidden: true });
    const list = new PagedList({
      label: "Webhook endpoints",
      columns: ["Endpoint", "Events", "Status", "Created", ""],
      moreText: "Load more endpoints",
      loadingText: "Loading endpoints…",
      empty: emptyPanel(
        "No endpoints yet",
        "An endpoint receives a signed POST for each event it subscribes to: an email bounced, a flag changed.",
      ),
      fetchPage: (page) => mailApi.listWebhooks(page),
      rows: (hook) => this.#row(hook),
      onError,
    });
    this.#list = list;
    const note = scopeNote();
    const { section, heading } = pageSection("webhooks-view", "Webhooks", {}, note, secret, ...list.parts, form);
    this.#ui = { section, heading, note, form, endpoint, endpointError, boxes, secret };
  }

  open() {
    show(this.#ui.secret, false);
    const load = async () => {
      show(this.#ui.form, true);
      await this.#list.load();
    };
    return openScoped(this.#ui, "full_access", { load, denied: () => this.#denied(), onError: this.onError });
  }

  #denied() {
    const ui = this.#ui;
    for (const el of [ui.form, ui.secret]) show(el, false);
    this.#list.hide();
    showScopeNote(ui.note, NO_WEBHOOK_SCOPE);
  }

  async #create(event) {
    event.preventDefault();
    const ui = this.#ui;
    const eventsError = ui.boxes.querySelector(".field-error");
    for (const slot of [ui.endpointError, eventsError]) show(slot, false);
    ui.endpoint.removeAttribute("aria-invalid");
    ui.boxes.removeAttribute("aria-invalid");
    const endpoint = ui.endpoint.value.trim();
    const events = [...ui.boxes.querySelectorAll("input:checked")].map((box) => box.value);
    if (endpoint === "") return fieldError(ui.endpointError, ui.endpoint, "Type the URL that receives the events.");
    if (events.length === 0)
      return fieldError(eventsError, ui.boxes.querySelector("input"), "Choose at least one event.");
    const button = ui.form.querySelector('[type="submit"]');
    button.disabled = true;
    try {
      const created = await mailApi.createWebhook({ endpoint, events });
      ui.endpoint.value = "";
      for (const box of ui.boxes.querySelectorAll("input")) box.checked = false;
      this.#showSecret(created, endpoint);
      await this.#list.load();
    } catch (error) {
      if (error.code === "validation_error") {
        const aboutEvents = /event/i.test(error.message) && !/endpoint/i.test(error.message);
        if (aboutEvents) fieldError(eventsError, ui.boxes.querySelector("input"), error.message);
        else fieldError(ui.endpointError, ui.endpoint, error.message);
      } else this.onError(error);
    } finally {
      button.disabled = false;
    }
  }

  #showSecret(created, endpoint) {
    const ui = this.#ui;
    ui.secret.replaceChildren(
      h("p", {}, "Created the endpoint ", h("code", {}, endpoint), "."),
      h(
        "p",
        {},
        "Signing secret (verify each delivery with it): ",
        h("code", { id: "webhook-secret" }, created.signing_secret),
      ),
      h("p", {}, h("a", { href: `#/webhooks/${encodeURIComponent(created.id)}` }, "Deliveries of this endpoint")),
    );
    show(ui.secret, true);
    this.onStatus("");
  }

  #delete(hook, button) {
    const question = {
      title: "Delete this endpoint?",
      text: `${hook.endpoint} gets no more events, and its deliveries and attempts are deleted with it.`,
      confirm: "Delete",
    };
    return confirmThenAct(
      button,
      question,
      async () => {
        await mailApi.deleteWebhook(hook.id);
        show(this.#ui.secret, false);
        this.onStatus(`Deleted the endpoint ${hook.endpoint}.`);
        await this.#list.load();
        this.#ui.heading.focus();
      },
      this.onError,
    );
  }

  #row(hook) {
    const remove = h(
      "button",
      { type: "button", class: "button button-danger button-small", "aria-label": `Delete ${hook.endpoint}` },
      "Delete",
    );
    remove.addEventListener("click", () => this.#delete(hook, remove));
    return h(
      "tr",
      { "data-id": hook.id },
      cell("Endpoint", h("a", { class: "mono", href: `#/webhooks/${encodeURIComponent(hook.id)}` }, hook.endpoint)),
      cell("Events", hook.events.join(", ")),
      cell("Status", endpointChip(hook)),
      cell("Created", timeElement(hook.created_at)),
      cell("", remove),
    );
  }
}
