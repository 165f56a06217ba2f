// The flag's variants: key, weight and value (JSON) of each; add and remove. Values are checked as
// they are typed (JSON, one type for the whole flag: docs/flags.md "Values"), weights on every
// change (they must sum to 100), the rest by the server on save.

import { h, uid } from "./dom.js";
import { errorSlot, field, percentInput, srOnly } from "./form-fields.js";
import { focusIn, removeButton, removeRow } from "./editor-rows.js";

const MAX_VARIANTS = 20;

/** The JSON type of a parsed value, by the server's rules: object and array are two types. */
export function jsonType(value) {
  if (Array.isArray(value)) return "array";
  return value === null ? "null" : typeof value;
}

const article = (type) => (type === "object" || type === "array" ? `an ${type}` : `a ${type}`);

/** Hundredths, so 33.33 + 33.33 + 33.34 is exactly 100 (as the server adds them). */
const hundredths = (text) => Math.round(Number(text) * 100);

/**
 * Each variant's value problem (by index) and the parsed values: invalid JSON, null, or a type
 * other than the first value's. An empty field is no value; whether that is allowed is `collect`'s.
 */
export function checkValues(texts) {
  const problems = [];
  const values = [];
  let firstType;
  texts.forEach((text, i) => {
    if (text.trim() === "") return;
    let value;
    try {
      value = JSON.parse(text);
    } catch (error) {
      problems[i] = `Not valid JSON: ${error.message}`;
      return;
    }
    const type = jsonType(value);
    if (type === "null") {
      problems[i] = "null is not a value: leave the field empty for none";
      return;
    }
    values[i] = value;
    firstType ??= type;
    if (type !== firstType)
      problems[i] =
        `This is ${article(type)}, but the first value is ${article(firstType)}: every value of a flag must have the same JSON type`;
  });
  return { problems, values };
}

export class VariantEditor {
  #list;
  #sum;
  #variants = [];
  #onKeys;

  constructor(list, addButton, sum, onKeys) {
    this.#list = list;
    this.#sum = sum;
    this.#onKeys = onKeys;
    addButton.addEventListener("click", () => this.#add());
  }

  set(variants) {
    this.#variants = variants.map((v) => ({
      id: uid("variant"),
      key: v.key,
      weight: String(v.weight),
      value: v.value === undefined ? "" : JSON.stringify(v.value, null, 2),
    }));
    this.#render();
  }

  /** The keys as typed (non-empty), for the rules' "Serves" choice. */
  keys() {
    return this.#variants.map((v) => v.key.trim()).filter((k) => k !== "");
  }

  snapshot() {
    return JSON.stringify(this.#variants.map(({ id: _id, ...typed }) => typed));
  }

  /** `{variants}` to send, or `{errors}` that stop the form from being sent. */
  collect() {
    const errors = [];
    const { problems, values } = checkValues(this.#variants.map((v) => v.value));
    problems.forEach((message, i) => message && errors.push({ path: `variants.${i}.value`, message }));
    const valued = this.#variants.some((v) => v.value.trim() !== "");
    const seen = new Set();
    const variants = this.#variants.map((v, i) => {
      const key = v.key.trim();
      if (key === "") errors.push({ path: `variants.${i}.key`, message: "Enter a key" });
      else if (seen.has(key)) errors.push({ path: `variants.${i}.key`, message: `Repeats the key “${key}”` });
      seen.add(key);
      const weight = Number(v.weight);
      if (v.weight.trim() === "" || !Number.isFinite(weight))
        errors.push({ path: `variants.${i}.weight`, message: "Enter a number from 0 to 100" });
      if (valued && v.value.trim() === "")
        errors.push({
          path: `variants.${i}.value`,
          message: "Enter a value: when one variant has a value, every variant needs one",
        });
      return values[i] === undefined ? { key, weight } : { key, weight, value: values[i] };
    });
    if (variants.length === 1) errors.push({ path: "variants", message: "Add a second variant, or remove this one" });
    const total = this.#total();
    if (variants.length > 0 && total !== 10_000)
      errors.push({ path: "variants", message: `Weights must sum to 100, not ${total / 100}` });
    return errors.length > 0 ? { errors } : { variants };
  }

  #total() {
    return this.#variants.reduce((sum, v) => sum + (Number.isFinite(Number(v.weight)) ? hundredths(v.weight) : 0), 0);
  }

  #add() {
    if (this.#variants.length >= MAX_VARIANTS) return;
    const variant = { id: uid("variant"), key: "", weight: this.#variants.length === 0 ? "100" : "0", value: "" };
    this.#variants.push(variant);
    this.#render(`${variant.id}:key`);
    this.#onKeys();
  }

  #remove(index) {
    this.#render(removeRow(this.#variants, index));
    this.#onKeys();
  }

  #render(focus) {
    this.#list.replaceChildren(...this.#variants.map((v, i) => this.#item(v, i)));
    this.#showSum();
    this.#showValueProblems();
    focusIn(this.#list, focus);
  }

  #showSum() {
    const total = this.#total();
    const ok = this.#variants.length === 0 || total === 10_000;
    this.#sum.textContent =
      this.#variants.length === 0
        ? "No variants: the flag answers on or off only."
        : `Weights sum to ${total / 100} of 100${ok ? "." : ": they must sum to exactly 100."}`;
    this.#sum.classList.toggle("field-error", !ok);
    // A sum problem shown by the last Save goes as soon as the weights are right.
    const saved = this.#list.parentElement.querySelector('[data-error-slot="variants"]');
    if (ok && saved?.textContent.startsWith("Weights")) saved.hidden = true;
  }

  /** Live: each value's JSON or type problem under its field, as it is typed. */
  #showValueProblems() {
    const { problems } = checkValues(this.#variants.map((v) => v.value));
    this.#variants.forEach((v, i) => {
      const slot = this.#list.querySelector(`[data-error-slot="variants.${i}.value"]`);
      const control = this.#list.querySelector(`[data-error-for="variants.${i}.value"]`);
      if (!slot || !control) return;
      slot.textContent = problems[i] ?? "";
      slot.hidden = problems[i] === undefined;
      if (problems[i]) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    });
  }

  #item(variant, index) {
    const n = index + 1;
    const path = (name) => `variants.${index}.${name}`;
    const which = () => srOnly(` (variant ${n})`);
    const bound = (prop, after) => ({
      "data-focus": `${variant.id}:${prop}`,
      "data-error-for": path(prop),
      value: variant[prop],
      oninput: (e) => {
        variant[prop] = e.target.value;
        after?.();
      },
    });
    const key = field(["Key", which()], path("key"), (id, describedBy) =>
      h("input", {
        id,
        type: "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: n === 1 ? "control" : "treatment",
        "aria-describedby": describedBy,
        ...bound("key", () => this.#onKeys()),
      }),
    );
    const weight = field(["Weight", which()], path("weight"), (id, describedBy) =>
      percentInput(
        id,
        describedBy,
        bound("weight", () => this.#showSum()),
      ),
    );
    const value = field(
      ["Value (JSON)", which()],
      path("value"),
      (id, describedBy) =>
        h("textarea", {
          id,
          rows: 2,
          spellcheck: "false",
          class: "mono",
          placeholder: '"Buy now", 25, true or {"maxUploadMb": 25}',
          "aria-describedby": describedBy,
          ...bound("value", () => this.#showValueProblems()),
        }),
      n === 1 ? "Optional. Strings in double quotes; every variant's value of the same type." : undefined,
    );
    const remove = removeButton(variant.id, `Remove variant ${n}`, () => this.#remove(index));
    return h(
      "li",
      { class: "variant", "data-variant-index": String(index) },
      key,
      weight,
      value,
      remove,
      errorSlot(`variants.${index}`),
    );
  }
}
