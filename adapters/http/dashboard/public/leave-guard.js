// Asks before unsaved edits are lost: on a move to another page of the dashboard (a link, the
// back button) with a dialog of its own, and on a reload or a closed tab with the browser's.

import { $ } from "./dom.js";

export class LeaveGuard {
  #hasUnsavedChanges;
  #target; // the address the user wanted, while the dialog asks
  #returnFocus;

  /** `hasUnsavedChanges()` says whether anything would be lost; `discard()` drops it. */
  constructor({ hasUnsavedChanges, discard }) {
    this.#hasUnsavedChanges = hasUnsavedChanges;
    const dialog = $("#leave-dialog");
    $("#keep-editing").addEventListener("click", () => dialog.close("keep"));
    $("#discard-changes").addEventListener("click", () => dialog.close("discard"));
    dialog.addEventListener("close", () => {
      const target = this.#target;
      this.#target = undefined;
      if (dialog.returnValue === "discard" && target !== undefined) {
        discard();
        location.hash = target;
      } else this.#returnFocus?.focus();
    });
    window.addEventListener("beforeunload", (event) => {
      if (!this.#hasUnsavedChanges()) return;
      event.preventDefault();
      event.returnValue = ""; // older browsers show their prompt only when this is set
    });
  }

  /**
   * Called on every hashchange. With unsaved edits it puts the previous address back (without a
   * new hashchange), asks, and answers true: the caller then leaves the page as it is.
   */
  intercept(oldURL) {
    if (!this.#hasUnsavedChanges()) return false;
    this.#target = location.hash;
    this.#returnFocus = document.activeElement;
    history.replaceState(history.state, "", new URL(oldURL).hash || "#/");
    const dialog = $("#leave-dialog");
    dialog.returnValue = "";
    dialog.showModal();
    return true;
  }
}
