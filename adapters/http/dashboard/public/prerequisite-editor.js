// The editor's prerequisites: flags that must answer on (or off) for the same user before the
// rules are tried (docs/flags.md "Prerequisites"). Each row is a flag key, chosen from the
// flags the key can list or typed, and the answer it must give. The server refuses unknown
// keys, cycles and chains deeper than 10; its messages land under the row or the fieldset.

import { h, uid } from "./dom.js";
import { errorSlot, srOnly } from "./form-fields.js";
import { focusIn, removeButton, removeRow } from "./editor-rows.js";

export class PrerequisiteEditor {
  #list;
  #suggestions;
  #rows = [];

  /** `list` is the <ol> of rows, `suggestions` the <datalist> of flag keys, `add` the add button. */
  constructor(list, suggestions, add) {
    this.#list = list;
    this.#suggestions = suggestions;
    add.addEventListener("click", () => {
      const row = { id: uid("prerequisite"), flagKey: "", enabled: "true" };
      this.#rows.push(row);
      this.#render(`${row.id}:flag`);
    });
  }

  set(prerequisites) {
    this.#rows = prerequisites.map((p) => ({
      id: uid("prerequisite"),
      flagKey: p.flagKey,
      enabled: String(p.enabled),
    }));
    this.#render();
  }

  /** The keys offered while typing a flag: every flag but the one edited. */
  suggest(keys) {
    this.#suggestions.replaceChildren(...keys.map((key) => h("option", { value: key })));
  }

  /** The rows as typed, to tell whether anything changed since `set`. */
  snapshot() {
    return JSON.stringify(this.#rows.map(({ flagKey, enabled }) => [flagKey, enabled]));
  }

  /** The wire list: `{flagKey, enabled}` in the order shown. */
  collect() {
    return this.#rows.map((row) => ({ flagKey: row.flagKey.trim(), enabled: row.enabled === "true" }));
  }

  #remove(index) {
    this.#render(removeRow(this.#rows, index) ?? "add");
  }

  #render(focus) {
    this.#list.replaceChildren(...this.#rows.map((row, i) => this.#item(row, i)));
    focusIn(this.#list, focus, "[data-add-prerequisite]");
  }

  #item(row, index) {
    const n = index + 1;
    const path = `prerequisites.${index}`;
    const flagId = uid("prerequisite-flag");
    const stateId = uid("prerequisite-state");
    const flagError = uid("error");
    return h(
      "li",
      { class: "prerequisite", "data-prerequisite-index": String(index) },
      h(
        "div",
        { class: "field prerequisite-flag" },
        h("label", { for: flagId }, "Flag", srOnly(` (prerequisite ${n})`)),
        h("input", {
          id: flagId,
          type: "text",
          list: this.#suggestions.id,
          autocomplete: "off",
          autocapitalize: "off",
          spellcheck: "false",
          class: "mono",
          value: row.flagKey,
          "data-focus": `${row.id}:flag`,
          "data-error-for": `${path}.flagKey`,
          "aria-describedby": flagError,
          oninput: (event) => (row.flagKey = event.target.value),
        }),
        h("p", { id: flagError, class: "field-error", "data-error-slot": `${path}.flagKey`, hidden: true }),
      ),
      h(
        "div",
        { class: "field prerequisite-state" },
        h("label", { for: stateId }, "Must be", srOnly(` (prerequisite ${n})`)),
        h(
          "select",
          {
            id: stateId,
            "data-focus": `${row.id}:state`,
            "data-error-for": `${path}.enabled`,
            onchange: (event) => (row.enabled = event.target.value),
          },
          h("option", { value: "true", selected: row.enabled === "true" }, "on"),
          h("option", { value: "false", selected: row.enabled === "false" }, "off"),
        ),
      ),
      removeButton(row.id, `Remove prerequisite ${n}`, () => this.#remove(index)),
      errorSlot(`${path}.enabled`),
      errorSlot(path),
    );
  }
}
