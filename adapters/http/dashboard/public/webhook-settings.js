// An endpoint's settings on its page (#/webhooks/{id}): status (a failing endpoint says since
// when), events, secret; Edit (PATCH /v1/webhooks/{id}: URL and events), Disable/Enable (PATCH
// status) and Rotate secret (POST …/signing-secret/rotate: the old secret keeps verifying for 24 h).

import { mailApi } from "./mail-api.js";
import { h, show, timeElement } from "./dom.js";
import { actWith, chip, confirmThenAct, fieldError, Page } from "./page-kit.js";
import { WEBHOOK_EVENT_TYPES } from "./webhook-event-types.js";

/** One checkbox per webhook event type, labelled with the type: the new-endpoint and edit forms' events. */
export function eventCheckboxes() {
  return WEBHOOK_EVENT_TYPES.map((type) =>
    h(
      "label",
      { class: "event-box" },
      h("input", { type: "checkbox", value: type }),
      h("span", { class: "mono" }, type),
    ),
  );
}

/** The status chip of an endpoint: Disabled, Enabled, or Failing while its attempts fail. */
export function endpointChip(hook) {
  if (hook.status !== "enabled") return chip("webhook", "disabled", "Disabled");
  if (!hook.failing_since) return chip("webhook", "enabled", "Enabled");
  const since = timeElement(hook.failing_since);
  return h(
    "span",
    { class: "failing" },
    chip("webhook", "failing", "Failing", `Every attempt has failed since ${since.textContent}`),
    " since ",
    since,
  );
}

export class WebhookSettings extends Page {
  #hook;
  #onChanged;
  #ui;

  constructor({ onError, onStatus, onChanged }) {
    super({ onError, onStatus });
    this.#onChanged = onChanged;
    const meta = h("dl", { class: "meta" });
    const edit = h("button", { type: "button", class: "button", onclick: () => this.#openForm() }, "Edit");
    const toggle = h("button", { type: "button", class: "button" });
    toggle.addEventListener("click", () => this.#toggle(toggle));
    const rotate = h("button", { type: "button", class: "button button-danger" }, "Rotate secret");
    rotate.addEventListener("click", () => this.#rotate(rotate));
    const actions = h("div", { class: "actions" }, edit, toggle, rotate);
    const panel = h("section", { class: "panel stack", "aria-label": "Endpoint", hidden: true }, meta, actions);
    this.#ui = { panel, meta, toggle };
  }

  /** The edit form exists only while it is open: its fields would repeat the New endpoint form's labels. */
  #buildForm() {
    const endpoint = h("input", {
      id: "webhook-edit-endpoint",
      type: "text",
      inputmode: "url",
      autocomplete: "off",
      spellcheck: "false",
      "aria-describedby": "webhook-edit-error",
    });
    const boxes = h("fieldset", { class: "event-boxes" }, h("legend", {}, "Events"), eventCheckboxes());
    const error = h("p", { id: "webhook-edit-error", class: "field-error", hidden: true });
    const form = h(
      "form",
      { class: "stack", novalidate: true, onsubmit: (e) => this.#save(e) },
      h("div", { class: "field" }, h("label", { for: "webhook-edit-endpoint" }, "URL"), endpoint),
      boxes,
      error,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit", class: "button button-primary" }, "Save"),
        h("button", { type: "button", class: "button", onclick: () => this.#closeForm() }, "Cancel"),
      ),
    );
    return { form, endpoint, boxes, error };
  }

  #closeForm() {
    this.#ui.edit?.form.remove();
    this.#ui.edit = undefined;
  }

  get panel() {
    return this.#ui.panel;
  }

  render(hook) {
    const ui = this.#ui;
    this.#hook = hook;
    ui.meta.replaceChildren(
      ...[
        ["Status", endpointChip(hook)],
        ["Events", hook.events.join(", ")],
        ["Created", timeElement(hook.created_at)],
        ["Signing secret", h("details", {}, h("summary", {}, "Show"), h("code", {}, hook.signing_secret))],
        ["ID", h("code", {}, hook.id)],
      ].flatMap(([label, content]) => [h("dt", {}, label), h("dd", {}, content)]),
    );
    ui.toggle.textContent = hook.status === "enabled" ? "Disable" : "Enable";
    ui.toggle.disabled = false;
    this.#closeForm();
    show(ui.panel, true);
  }

  #openForm() {
    this.#closeForm();
    const ui = (this.#ui.edit = this.#buildForm());
    this.#ui.panel.append(ui.form);
    ui.endpoint.value = this.#hook.endpoint;
    for (const box of ui.boxes.querySelectorAll("input")) box.checked = this.#hook.events.includes(box.value);
    ui.endpoint.focus();
  }

  async #save(event) {
    event.preventDefault();
    const ui = this.#ui.edit;
    const endpoint = ui.endpoint.value.trim();
    const events = [...ui.boxes.querySelectorAll("input:checked")].map((box) => box.value);
    if (events.length === 0) return fieldError(ui.error, ui.boxes.querySelector("input"), "Choose at least one event.");
    try {
      await mailApi.updateWebhook(this.#hook.id, { endpoint, events });
      this.onStatus(`Saved the endpoint ${endpoint}.`);
      await this.#onChanged();
    } catch (error) {
      if (error.code === "validation_error") fieldError(ui.error, ui.endpoint, error.message);
      else this.onError(error);
    }
  }

  #toggle(button) {
    const status = this.#hook.status === "enabled" ? "disabled" : "enabled";
    return actWith(
      button,
      async () => {
        await mailApi.updateWebhook(this.#hook.id, { status });
        this.onStatus(status === "enabled" ? "Enabled the endpoint." : "Disabled the endpoint: it gets no events.");
        await this.#onChanged();
      },
      this.onError,
    );
  }

  #rotate(button) {
    const question = {
      title: "Rotate the signing secret?",
      text: "Deliveries are signed with a new secret from now on; the old one keeps verifying for 24 hours, so update your receiver within a day.",
      confirm: "Rotate",
    };
    return confirmThenAct(
      button,
      question,
      async () => {
        const rotated = await mailApi.rotateSecret(this.#hook.id);
        button.disabled = false;
        this.onStatus(`Rotated the signing secret; the new one is ${rotated.signing_secret}.`);
        await this.#onChanged();
      },
      this.onError,
    );
  }
}
