// The editor's actions that act on their own, apart from Save: the enabled switch and delete.

import { api } from "./api.js";
import { $, show, timeElement } from "./dom.js";

const NEW_FLAG_HELP = {
  true: "On: the flag is created switched on, each user checked against the rules.",
  false: "Off: the flag is created switched off; every evaluation answers false until you switch it on.",
};

export class FlagActions {
  #flag; // the saved flag; undefined while creating or when none is shown
  #onError;
  #onStatus;
  #navigate;
  #onChange;

  /** `onChange(flag)` hears of a flag the switch changed; `onDeleted()` before the page moves on. */
  constructor({ onError, onStatus, navigate, onChange, onDeleted }) {
    this.#onError = onError;
    this.#onStatus = onStatus;
    this.#navigate = navigate;
    this.#onChange = onChange;
    $("#flag-enabled").addEventListener("change", (event) => void this.#setEnabled(event.target));
    $("#delete-flag").addEventListener("click", () => this.#confirmDelete());
    $("#cancel-delete").addEventListener("click", () => $("#delete-dialog").close("cancel"));
    $("#confirm-delete").addEventListener("click", () => $("#delete-dialog").close("delete"));
    $("#delete-dialog").addEventListener("close", () => {
      if ($("#delete-dialog").returnValue === "delete") void this.#delete(onDeleted);
      else $("#delete-flag").focus();
    });
  }

  /** A new flag: the switch only chooses what `enabled` the flag is created with. */
  showNew(writable) {
    this.#flag = undefined;
    const enabled = $("#flag-enabled");
    enabled.checked = false;
    enabled.disabled = !writable;
    $("#flag-enabled-help").textContent = NEW_FLAG_HELP[false];
    show($("#flag-enabled-error"), false);
    show($("#flag-state"), true);
    show($("#flag-meta"), false);
    show($("#danger"), false);
  }

  /** A saved flag: the switch sends PATCH {enabled} at once. */
  showFlag(flag, writable) {
    this.#flag = flag;
    const enabled = $("#flag-enabled");
    enabled.disabled = !writable;
    enabled.checked = flag.enabled;
    $("#flag-enabled-help").textContent = flag.enabled
      ? "On: each user is checked against the rules."
      : "Off: every evaluation answers false.";
    $("#flag-created").replaceChildren(timeElement(flag.createdAt));
    $("#flag-updated").replaceChildren(timeElement(flag.updatedAt));
    show($("#flag-state"), true);
    show($("#flag-meta"), true);
    show($("#danger"), writable);
    show($("#delete-error"), false);
  }

  /** No flag is shown (loading, or none has the key): nothing of an earlier one stays. */
  hide() {
    this.#flag = undefined;
    show($("#flag-state"), false);
    show($("#flag-meta"), false);
    show($("#flag-enabled-error"), false);
    show($("#danger"), false);
  }

  /** The `enabled` a new flag is created with. */
  get enabledForNew() {
    return $("#flag-enabled").checked;
  }

  async #setEnabled(input) {
    const flag = this.#flag;
    if (!flag) {
      $("#flag-enabled-help").textContent = NEW_FLAG_HELP[input.checked];
      return;
    }
    const error = $("#flag-enabled-error");
    show(error, false);
    input.disabled = true;
    try {
      const updated = await api.updateFlag(flag.key, { enabled: input.checked });
      this.showFlag(updated, true);
      this.#onChange(updated);
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

  async #delete(onDeleted) {
    const key = this.#flag?.key;
    if (!key) return;
    show($("#delete-error"), false);
    try {
      await api.deleteFlag(key);
    } catch (error) {
      if (error.code === "conflict") {
        // Other flags list this one as a prerequisite; the message names them.
        $("#delete-error").textContent = error.message;
        show($("#delete-error"), true);
        $("#delete-flag").focus();
        return;
      }
      if (error.code !== "not_found") {
        this.#onError(error);
        return;
      }
    }
    onDeleted();
    this.#onStatus(`Deleted flag ${key}.`);
    this.#navigate("#/");
  }
}
