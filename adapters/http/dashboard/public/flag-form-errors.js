// The flag form's answer to a refused save: the server's messages next to their fields, a
// summary at the top of the form, the focus on the first field to fix.

import { $, setFieldError, show, showFieldErrors } from "./dom.js";

/** The summary at the top of the form, with one line per problem no field took. */
export function formError(message, lines = []) {
  const box = $("#form-error");
  box.replaceChildren(
    message,
    ...lines.map((line) => Object.assign(document.createElement("div"), { textContent: line })),
  );
  show(box, true);
}

/** A save the server refused (a refused key is the caller's to handle). `keyOk`: the page's own key check passed. */
export function showSaveError(error, keyOk) {
  const form = $("#flag-form");
  if (error.code === "conflict") {
    setFieldError(form, "key", error.message);
    formError("The flag was not saved: the key is taken.");
    $("#flag-key").focus();
    return;
  }
  if (error.code === "validation_error" && error.details.length > 0) {
    // The page's own message for the key is already shown; the server's would repeat it.
    const details = keyOk ? error.details : error.details.filter((d) => d.path !== "key");
    const { leftover, firstControl } = showFieldErrors(form, details);
    const n = details.length + (keyOk ? 0 : 1);
    const extra = leftover.map((d) => (d.path ? `“${d.path}” ${d.message}` : d.message));
    formError(
      `The server did not save the flag: ${n} problem${n === 1 ? "" : "s"}${leftover.length < n ? ", shown next to the fields" : ""}.`,
      extra,
    );
    (keyOk ? firstControl : $("#flag-key"))?.focus();
    return;
  }
  formError(error.message);
}
