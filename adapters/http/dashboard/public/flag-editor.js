// Create / edit one flag: key, description, rules; the enabled switch; delete with confirmation.

import { api } from "./api.js";
import { $, clearFieldErrors, setFieldError, show, showFieldErrors, timeElement } from "./dom.js";
import { RuleEditor } from "./rule-editor.js";
import { TryIt } from "./try-it.js";

const keyPattern = new RegExp(document.querySelector('meta[name="flagpost-key-pattern"]').content);
const KEY_RULE = "must be 1 to 128 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit";

/** The client's own check of a key, before anything is sent (the server checks it again). */
export function keyProblem(key) {
  if (key === "") return "Enter a key";
  return keyPattern.test(key) ? undefined : `The key ${KEY_RULE}`;
}

export class FlagEditor {
  #flag; // the saved flag, or undefined while creating
  #rules;
  #tryIt;
  #busy = false;
  #onError;
  #onStatus;
  #navigate;

  constructor({ onError, onStatus, navigate }) {
    this.#onError = onError;
    this.#onStatus = onStatus;
    this.#navigate = navigate;
    this.#rules = new RuleEditor($("#rule-list"), document.querySelectorAll("[data-add-rule]"));
    this.#tryIt = new TryIt({ onError });
    $("#flag-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#save();
    });
    const key = $("#flag-key");
    key.addEventListener("blur", () => {
      if (!this.#flag && key.value !== "") this.#checkKey();
    });
    key.addEventListener("input", () => {
      if (key.hasAttribute("aria-invalid")) this.#checkKey();
    });
    $("#flag-enabled").addEventListener("change", (event) => void this.#setEnabled(event.target));
    $("#delete-flag").addEventListener("click", () => this.#confirmDelete());
    $("#cancel-delete").addEventListener("click", () => $("#delete-dialog").close("cancel"));
    $("#confirm-delete").addEventListener("click", () => $("#delete-dialog").close("delete"));
    $("#delete-dialog").addEventListener("close", () => {
      if ($("#delete-dialog").returnValue === "delete") void this.#delete();
      else $("#delete-flag").focus();
    });
  }

  /** Opens the form for a new flag (`key` undefined) or for an existing one. */
  async open(key) {
    this.#reset();
    if (key === undefined) {
      this.#showNew();
      return true;
    }
    show($("#editor-loading"), true);
    show($("#editor-body"), false);
    try {
      this.#showFlag(await api.getFlag(key));
      show($("#editor-body"), true);
      return true;
    } catch (error) {
      this.#onError(error);
      return false;
    } finally {
      show($("#editor-loading"), false);
    }
  }

  #reset() {
    const form = $("#flag-form");
    clearFieldErrors(form);
    clearFieldErrors($("#try-it"));
    show($("#form-error"), false);
    show($("#flag-enabled-error"), false);
    show($("#editor-body"), true);
    this.#tryIt.reset();
  }

  #showNew() {
    this.#flag = undefined;
    $("#editor-title").textContent = "New flag";
    const key = $("#flag-key");
    key.value = "";
    key.readOnly = false;
    $("#flag-description").value = "";
    this.#rules.set([]);
    $("#save-flag").textContent = "Create flag";
    const enabled = $("#flag-enabled");
    enabled.checked = false;
    enabled.disabled = true;
    $("#flag-enabled-help").textContent = "A new flag starts off: create it, then switch it on here.";
    show($("#flag-meta"), false);
    show($("#try-it"), false);
    show($("#danger"), false);
  }

  #showFlag(flag) {
    this.#flag = flag;
    $("#editor-title").textContent = flag.key;
    const key = $("#flag-key");
    key.value = flag.key;
    key.readOnly = true;
    $("#flag-description").value = flag.description;
    this.#rules.set(flag.rules);
    $("#save-flag").textContent = "Save changes";
    this.#showState(flag);
    show($("#flag-meta"), true);
    this.#tryIt.setFlag(flag);
    show($("#try-it"), true);
    show($("#danger"), true);
  }

  #showState(flag) {
    const enabled = $("#flag-enabled");
    enabled.disabled = false;
    enabled.checked = flag.enabled;
    $("#flag-enabled-help").textContent = flag.enabled
      ? "On: each user is checked against the rules."
      : "Off: every evaluation answers false.";
    $("#flag-created").replaceChildren(timeElement(flag.createdAt));
    $("#flag-updated").replaceChildren(timeElement(flag.updatedAt));
  }

  #checkKey() {
    const form = $("#flag-form");
    const slot = form.querySelector('[data-error-slot="key"]');
    slot.hidden = true;
    slot.textContent = "";
    $("#flag-key").removeAttribute("aria-invalid");
    const problem = keyProblem($("#flag-key").value);
    if (problem) setFieldError(form, "key", problem);
    return problem === undefined;
  }

  async #save() {
    if (this.#busy) return;
    const form = $("#flag-form");
    clearFieldErrors(form);
    show($("#form-error"), false);
    const creating = this.#flag === undefined;
    const keyOk = creating ? this.#checkKey() : true;
    const collected = this.#rules.collect();
    if (!keyOk || collected.errors) {
      const { firstControl } = showFieldErrors(form, collected.errors ?? []);
      this.#formError("Fix the fields marked below; nothing was sent.");
      (keyOk ? firstControl : $("#flag-key"))?.focus();
      return;
    }
    const description = $("#flag-description").value;
    this.#busy = true;
    $("#save-flag").disabled = true;
    try {
      if (creating) {
        const key = $("#flag-key").value;
        const flag = await api.createFlag({ key, description, rules: collected.rules });
        this.#onStatus(`Created flag ${flag.key}. It is off: switch it on when you are ready.`);
        this.#navigate(`#/flags/${encodeURIComponent(flag.key)}`);
      } else {
        const flag = await api.updateFlag(this.#flag.key, { description, rules: collected.rules });
        this.#showFlag(flag);
        this.#onStatus(`Saved flag ${flag.key}.`);
      }
    } catch (error) {
      this.#saveFailed(error);
    } finally {
      this.#busy = false;
      $("#save-flag").disabled = false;
    }
  }

  #saveFailed(error) {
    const form = $("#flag-form");
    if (error.code === "conflict") {
      setFieldError(form, "key", error.message);
      this.#formError("The flag was not saved: the key is taken.");
      $("#flag-key").focus();
      return;
    }
    if (error.code === "validation_error" && error.details.length > 0) {
      const { leftover, firstControl } = showFieldErrors(form, error.details);
      const n = error.details.length;
      const extra = leftover.map((d) => (d.path ? `“${d.path}” ${d.message}` : d.message));
      this.#formError(
        `The server did not save the flag: ${n} problem${n === 1 ? "" : "s"}${leftover.length < n ? ", shown next to the fields" : ""}.`,
        extra,
      );
      firstControl?.focus();
      return;
    }
    if (error.isAuth) {
      this.#onError(error);
      return;
    }
    this.#formError(error.message);
  }

  #formError(message, lines = []) {
    const box = $("#form-error");
    box.replaceChildren(
      message,
      ...lines.map((line) => Object.assign(document.createElement("div"), { textContent: line })),
    );
    show(box, true);
  }

  async #setEnabled(input) {
    const flag = this.#flag;
    if (!flag) return;
    const error = $("#flag-enabled-error");
    show(error, false);
    input.disabled = true;
    try {
      const updated = await api.updateFlag(flag.key, { enabled: input.checked });
      this.#flag = updated;
      this.#showState(updated);
      this.#tryIt.setFlag(updated);
      this.#onStatus(`${flag.key} is now ${updated.enabled ? "on" : "off"}.`);
    } catch (failure) {
      input.checked = flag.enabled;
      if (failure.isAuth) this.#onError(failure);
      else {
        error.textContent = failure.message;
        show(error, true);
      }
    } finally {
      input.disabled = false;
      input.focus();
    }
  }

  #confirmDelete() {
    if (!this.#flag) return;
    $("#delete-dialog-key").textContent = this.#flag.key;
    $("#delete-dialog").returnValue = "";
    $("#delete-dialog").showModal();
  }

  async #delete() {
    const key = this.#flag?.key;
    if (!key) return;
    try {
      await api.deleteFlag(key);
    } catch (error) {
      if (error.code !== "not_found") {
        this.#onError(error);
        return;
      }
    }
    this.#onStatus(`Deleted flag ${key}.`);
    this.#navigate("#/");
  }
}
