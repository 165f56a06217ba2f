// What the list editors (rules, variants, prerequisites) do alike with their rows: remove one and
// put focus where a keyboard user expects it, since the removed row's button goes with it.

import { h } from "./dom.js";

/** A row's Remove button; its data-focus names it, so focus can come back to it after a redraw. */
export function removeButton(rowId, label, onclick) {
  return h(
    "button",
    {
      type: "button",
      class: "button button-small button-quiet",
      "data-focus": `${rowId}:remove`,
      "aria-label": label,
      onclick,
    },
    "Remove",
  );
}

/**
 * Takes row `index` out of `rows` and names the control to focus next: the Remove button of the
 * row now in its place, else of the row before; undefined when no row is left.
 */
export function removeRow(rows, index) {
  rows.splice(index, 1);
  const next = rows[index] ?? rows[index - 1];
  return next ? `${next.id}:remove` : undefined;
}

/** Focuses the control of `list` that `focus` names: "add" is the editor's add button (`addSelector`). */
export function focusIn(list, focus, addSelector) {
  if (!focus) return;
  const target =
    focus === "add" ? list.parentElement.querySelector(addSelector) : list.querySelector(`[data-focus="${focus}"]`);
  target?.focus();
}
