// Building blocks of the rule editor's fields: a labelled control with its error slot and hint.

import { h, uid } from "./dom.js";

export function placeholderFor(kind) {
  return { number: "42", date: "2025-01-31T00:00:00Z", version: "1.2.3", string: "pro" }[kind] ?? "";
}

/** Text for screen readers only: tells apart the same field in several rules. */
export function srOnly(text) {
  return h("span", { class: "sr-only" }, text);
}

export function errorSlot(path) {
  return h("p", { class: "field-error", "data-error-slot": path, hidden: true });
}

/** A labelled control with its error slot (and an optional hint). */
export function field(label, path, control, hint) {
  const id = uid("field");
  const errorId = uid("error");
  const hintId = hint ? uid("hint") : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ");
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control(id, describedBy),
    h("p", { id: errorId, class: "field-error", "data-error-slot": path, hidden: true }),
    hint ? h("p", { id: hintId, class: "hint" }, hint) : undefined,
  );
}

/** A percentage input (0–100, two decimals) with its "%" unit: a variant's weight, a rollout's share. */
export function percentInput(id, describedBy, binding) {
  return h(
    "div",
    { class: "with-unit" },
    h("input", {
      id,
      type: "number",
      min: "0",
      max: "100",
      step: "0.01",
      inputmode: "decimal",
      "aria-describedby": describedBy,
      ...binding,
    }),
    h("span", { class: "unit", "aria-hidden": "true" }, "%"),
  );
}
