// Create / edit one flag: key, description, rules, prerequisites and Save; knows whether edits
// are unsaved. The enabled switch and delete live in flag-actions.js, the rules in
// rule-editor.js, the prerequisites in prerequisite-editor.js, the tabs and side panels of a
// saved flag (history, evaluations, schedules) in flag-panels.js.

import { api } from "./api.js";
import { $, clearFieldErrors, setFieldError, show, showFieldErrors } from "./dom.js";
import { FlagActions } from "./flag-actions.js";
import { formError, showSaveError } from "./flag-form-errors.js";
import { FlagPanels, splitFlagPath } from "./flag-panels.js";
import { PrerequisiteEditor } from "./prerequisite-editor.js";
import { RuleEditor } from "./rule-editor.js";
import { TryIt } from "./try-it.js";
import { VariantEditor } from "./variant-editor.js";
import { Page } from "./page-kit.js";

const keyPattern = new RegExp(document.querySelector('meta[name="flagpost-key-pattern"]').content);
const KEY_RULE = "must be 1 to 128 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit";

/** The client's own check of a key, as soon as it is typed (the server checks it again). */
export function keyProblem(key) {
  if (key === "") return "Enter a key";
  return keyPattern.test(key) ? undefined : `The key ${KEY_RULE}`;
}

// Whether a mouse button or finger is down: a check on blur waits until the press ends (below).
let pressing = false;
document.addEventListener("pointerdown", () => (pressing = true), true);
document.addEventListener("pointerup", () => setTimeout(() => (pressing = false)), true);

export class FlagEditor extends Page {
  #flag; // the saved flag, or undefined while creating
  #rules;
  #prerequisites;
  #variants;
  #panels;
  #tryIt;
  #actions;
  #busy = false;
  #writable = true;
  #baseline; // the form as opened or saved; undefined when there is nothing to lose
  #navigate;

  constructor({ onError, onStatus, navigate }) {
    super({ onError, onStatus });
    this.#navigate = navigate;
    this.#rules = new RuleEditor($("#rule-list"), document.querySelectorAll("[data-add-rule]"));
    this.#variants = new VariantEditor($("#variant-list"), $("[data-add-variant]"), $("#variant-sum"), () =>
      this.#rules.setVariantKeys(this.#variants.keys()),
    );
    this.#prerequisites = new PrerequisiteEditor(
      $("#prerequisite-list"),
      $("#prerequisite-flags"),
      $("[data-add-prerequisite]"),
    );
    this.#panels = new FlagPanels({ onError, onStatus, formChanges: () => this.#formChanges() });
    this.#tryIt = new TryIt({ onError });
    this.#actions = new FlagActions({
      onError,
      onStatus,
      navigate,
      onChange: (flag) => {
        this.#flag = flag;
        this.#tryIt.setFlag(flag);
        this.#panels.changed();
      },
      onDeleted: () => (this.#baseline = undefined),
    });
    $("#flag-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#save();
    });
    const key = $("#flag-key");
    key.addEventListener("blur", () => {
      if (this.#flag || key.value === "") return;
      // The message moves what is below the field. Focus leaves on the press of a click, so a
      // message shown now would move the button away before the release, and the click would
      // be lost: wait until the press is over (after its click).
      if (pressing) document.addEventListener("pointerup", () => setTimeout(() => this.#checkKey()), { once: true });
      else this.#checkKey();
    });
    key.addEventListener("input", () => {
      if (key.hasAttribute("aria-invalid")) this.#checkKey();
    });
  }

  /** Whether the page may change flags with the current key (docs/dashboard.md, "Read-only keys"). */
  setWritable(writable) {
    this.#writable = writable;
  }

  /**
   * Opens the form for a new flag (`path` undefined) or for an existing one (`path` is its key,
   * or `{key}/history` for its History tab); false when it is not shown.
   */
  async open(path) {
    this.#reset();
    this.#panels.hide();
    if (path === undefined) {
      this.#showNew();
      return true;
    }
    const { key, tab } = splitFlagPath(path);
    // Nothing of the flag shown before stays while this one loads, or when none has this key.
    this.#flag = undefined;
    this.#actions.hide();
    $("#editor-title").textContent = key;
    show($("#editor-loading"), true);
    show($("#editor-body"), false);
    try {
      const flag = await api.getFlag(key);
      show($("#editor-body"), true);
      this.#showFlag(flag, tab); // after: the History tab hides the form again
      return true;
    } catch (error) {
      if (error.code === "not_found") {
        $("#editor-title").textContent = "Flag not found";
        $("#flag-missing-text").textContent = `No flag has the key “${key}”. It may have been deleted.`;
        show($("#flag-missing"), true);
        this.#panels.showDeletedHistory(key);
      } else this.onError(error);
      return false;
    } finally {
      show($("#editor-loading"), false);
    }
  }

  /** True when the form holds edits that Save has not sent. */
  hasUnsavedChanges() {
    return this.#baseline !== undefined && this.#snapshot() !== this.#baseline;
  }

  /** The user chose to leave: the edits are dropped. */
  discardChanges() {
    this.#baseline = undefined;
  }

  #snapshot() {
    const creating = this.#flag === undefined;
    return JSON.stringify({
      key: creating ? $("#flag-key").value : undefined,
      enabled: creating ? this.#actions.enabledForNew : undefined,
      description: $("#flag-description").value,
      rules: this.#rules.snapshot(),
      variants: this.#variants.snapshot(),
      prerequisites: this.#prerequisites.snapshot(),
    });
  }

  #reset() {
    const form = $("#flag-form");
    clearFieldErrors(form);
    clearFieldErrors($("#try-it"));
    show($("#form-error"), false);
    show($("#flag-missing"), false);
    show($("#editor-body"), true);
    this.#baseline = undefined;
    this.#tryIt.reset();
  }

  #showNew() {
    this.#flag = undefined;
    $("#editor-title").textContent = "New flag";
    const key = $("#flag-key");
    key.value = "";
    key.readOnly = false;
    $("#flag-description").value = "";
    this.#variants.set([]);
    this.#rules.setVariantKeys([]);
    this.#rules.set([]);
    this.#prerequisites.set([]);
    this.#suggestPrerequisites(undefined);
    $("#save-flag").textContent = "Create flag";
    this.#showAccess();
    this.#actions.showNew(this.#writable);
    show($("#try-it"), false);
    show($("#experiment-panel"), false);
    this.#baseline = this.#snapshot();
  }

  #showFlag(flag, tab) {
    this.#flag = flag;
    $("#editor-title").textContent = flag.key;
    const key = $("#flag-key");
    key.value = flag.key;
    key.readOnly = true;
    $("#flag-description").value = flag.description;
    this.#variants.set(flag.variants ?? []);
    this.#rules.setVariantKeys(this.#variants.keys());
    this.#rules.set(flag.rules);
    this.#prerequisites.set(flag.prerequisites ?? []);
    this.#suggestPrerequisites(flag.key);
    $("#save-flag").textContent = "Save changes";
    this.#showAccess();
    this.#actions.showFlag(flag, this.#writable);
    this.#tryIt.setFlag(flag);
    show($("#try-it"), true);
    const variants = flag.variants ?? [];
    $("#experiment-variants").textContent = variants.map((v) => `${v.key} ${v.weight}`).join(", ");
    $("#experiment-link").href = `#/flags/${encodeURIComponent(flag.key)}/experiment`;
    show($("#experiment-panel"), variants.length > 0);
    this.#panels.showFlag(flag, this.#writable, tab);
    this.#baseline = this.#writable ? this.#snapshot() : undefined;
  }

  /** Flags a prerequisite may name, offered while typing (suggestions only: a failure leaves typing). */
  #suggestPrerequisites(own) {
    if (!this.#writable) return;
    api.listFlags({ limit: 1000 }).then(
      (page) => this.#prerequisites.suggest(page.flags.map((f) => f.key).filter((k) => k !== own)),
      () => this.#prerequisites.suggest([]),
    );
  }

  /** The form's rules and prerequisites as a scheduled change, or why they cannot be one. */
  #formChanges() {
    const collected = this.#rules.collect();
    const { variants, errors } = this.#variants.collect();
    if (collected.errors || errors) return { error: "Fix the rules and variants in the form first (Save shows where)" };
    const changes = { rules: collected.rules, prerequisites: this.#prerequisites.collect() };
    // Variants only when there are some, before or after: a flag without any schedules no change to them.
    if (variants.length > 0 || (this.#flag?.variants?.length ?? 0) > 0) changes.variants = variants;
    return { changes };
  }

  /** A key without flags:write reads the form but has nothing to press that would fail. */
  #showAccess() {
    $("#flag-fields").disabled = !this.#writable;
    show($("#save-flag"), this.#writable);
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
    const { variants, errors: variantErrors } = this.#variants.collect();
    if (collected.errors || variantErrors) {
      // A value the page cannot turn into JSON, or values of mixed types, cannot be sent at all.
      const { firstControl } = showFieldErrors(form, [...(variantErrors ?? []), ...(collected.errors ?? [])]);
      formError("Fix the fields marked below; nothing was sent.");
      (keyOk ? firstControl : $("#flag-key"))?.focus();
      return;
    }
    // A bad key is still sent: the server refuses it for sure (same pattern), and its answer
    // names every other problem too, so all of them show at once.
    const fields = {
      description: $("#flag-description").value,
      rules: collected.rules,
      variants,
      prerequisites: this.#prerequisites.collect(),
    };
    this.#busy = true;
    $("#save-flag").disabled = true;
    try {
      if (creating) {
        const key = $("#flag-key").value;
        const flag = await api.createFlag({ key, enabled: this.#actions.enabledForNew, ...fields });
        this.#baseline = undefined;
        this.onStatus(
          `Created flag ${flag.key}. ${flag.enabled ? "It is on." : "It is off: switch it on when you are ready."}`,
        );
        this.#navigate(`#/flags/${encodeURIComponent(flag.key)}`);
      } else {
        const flag = await api.updateFlag(this.#flag.key, fields);
        this.#showFlag(flag);
        this.#panels.changed();
        this.onStatus(`Saved flag ${flag.key}.`);
      }
    } catch (error) {
      if (error.isAuth) this.onError(error);
      else showSaveError(error, keyOk);
    } finally {
      this.#busy = false;
      $("#save-flag").disabled = false;
    }
  }
}
