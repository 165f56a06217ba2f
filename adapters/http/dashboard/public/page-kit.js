// Pieces the email, suppression, webhook and experiment pages share: their section frame, the
// note a key without the page's scope sees, tables, status chips and a confirmation dialog.
// Everything goes in as text (dom.js h()), never as HTML.

import { h, show } from "./dom.js";
import { keyMay } from "./mail-api.js";

/** What a page is handed by the app: where its errors go, and where it says what a write did. */
export class Page {
  constructor({ onError, onStatus }) {
    this.onError = onError;
    this.onStatus = onStatus;
  }
}

/**
 * A page: `<section id>` appended to <main>, with an optional crumb link, its h1 (focused when the
 * page opens) beside `actions`, then `children`.
 */
export function pageSection(id, title, { crumb, actions = [] } = {}, ...children) {
  const heading = h("h1", { id: `${id}-title`, tabindex: "-1" }, title);
  const section = h(
    "section",
    { id, class: "page", "aria-labelledby": `${id}-title`, hidden: true },
    crumb ? h("p", { class: "crumbs" }, h("a", { href: crumb.href }, crumb.text)) : undefined,
    h("div", { class: "view-head" }, heading, actions.length > 0 ? h("div", { class: "actions" }, actions) : undefined),
    ...children,
  );
  document.querySelector("#main").append(section);
  return { section, heading };
}

/** The message a page shows instead of itself when the key lacks its scope. */
export function scopeNote() {
  return h("p", { class: "notice notice-info scope-note", role: "note", hidden: true });
}

export function showScopeNote(note, text) {
  note.textContent = text;
  show(note, text !== "");
}

/** `message` in a form's error `slot`; `control` is marked invalid and takes the focus. */
export function fieldError(slot, control, message) {
  slot.textContent = message;
  show(slot, true);
  control.setAttribute("aria-invalid", "true");
  control.focus();
}

/** A 403 restricted_api_key: the key is good, only not for this. */
export const isRestricted = (error) => error?.code === "restricted_api_key";

/**
 * Opens a page that needs `scope`: focuses its heading, clears its note, then runs `load` (with a
 * `loading` line shown meanwhile, when given). A key without the scope (known up front, or
 * refused with restricted_api_key) gets `denied()`; a not_found goes to `notFound()` when given;
 * any other failure goes to `onError`.
 */
export async function openScoped({ heading, note }, scope, { load, denied, notFound, loading, onError }) {
  heading.focus();
  showScopeNote(note, "");
  if (loading) show(loading, true);
  try {
    if (!(await keyMay(scope))) return denied();
    await load();
  } catch (error) {
    if (isRestricted(error)) denied();
    else if (notFound && error.code === "not_found") notFound();
    else onError(error);
  } finally {
    if (loading) show(loading, false);
  }
}

/** A record's page for an id that names nothing: the heading says so, and a line says which id. */
export function showMissing({ heading, missing }, title, text) {
  heading.textContent = title;
  missing.replaceChildren(h("p", {}, text));
  show(missing, true);
}

/** A table whose rows become cards on narrow screens; each cell names its column (data-label). */
export function dataTable(label, columns) {
  const body = h("tbody");
  const table = h(
    "table",
    { class: "data-table", "aria-label": label, hidden: true },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        // A column of buttons has no visible title; screen readers still hear one.
        columns.map((c) => h("th", { scope: "col" }, c || h("span", { class: "sr-only" }, "Actions"))),
      ),
    ),
    body,
  );
  return { table, body };
}

export const cell = (label, ...content) => h("td", { "data-label": label }, ...content);

/** What a list shows instead of an empty table: a heading and one line of text. */
export const emptyPanel = (title, text) =>
  h("div", { class: "panel empty", hidden: true }, h("h2", {}, title), h("p", {}, text));

/** A coloured chip with its state as text (colour is never the only sign). */
export function chip(kind, state, label, title) {
  return h("span", { class: `chip chip-${state}`, "data-chip": kind, "data-state": state, title }, label);
}

// One dialog for every confirmation of these pages; Escape and Cancel answer false.
let dialog;

function confirmAction({ title, text, confirm }) {
  if (!dialog) {
    dialog = h(
      "dialog",
      { id: "confirm-dialog", class: "dialog", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
      h(
        "div",
        { class: "stack" },
        h("h2", { id: "confirm-title" }),
        h("p", { id: "confirm-text" }),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "button", "data-answer": "no", autofocus: true }, "Cancel"),
          h("button", { type: "button", class: "button button-danger", "data-answer": "yes" }),
        ),
      ),
    );
    document.body.append(dialog);
  }
  dialog.querySelector("#confirm-title").textContent = title;
  dialog.querySelector("#confirm-text").textContent = text;
  dialog.querySelector('[data-answer="yes"]').textContent = confirm;
  return new Promise((resolve) => {
    const answer = (value) => {
      dialog.removeEventListener("close", onClose);
      for (const button of dialog.querySelectorAll("[data-answer]")) button.onclick = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const onClose = () => answer(false);
    dialog.addEventListener("close", onClose);
    for (const button of dialog.querySelectorAll("[data-answer]"))
      button.onclick = () => answer(button.dataset.answer === "yes");
    dialog.showModal();
  });
}

/**
 * Runs `action` with `button` disabled. It stays disabled when the action succeeds (the page then
 * renders that row again); when it fails it is enabled again and `onError` hears why.
 */
export async function actWith(button, action, onError) {
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    button.disabled = false;
    onError(error);
  }
}

/** actWith after `question` (confirmAction) is answered yes; Cancel gives the focus back to `button`. */
export async function confirmThenAct(button, question, action, onError) {
  if (!(await confirmAction(question))) return button.focus();
  return actWith(button, action, onError);
}
