// Small DOM helpers. Text always goes in through textContent: nothing from the server or the
// user is ever parsed as HTML.

/** h("button", {type: "button", class: "x", onclick: fn}, "text", child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name === "value") el.value = value;
    else if (name === "checked") el.checked = Boolean(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

export function show(el, visible = true) {
  el.hidden = !visible;
}

let idCounter = 0;
export const uid = (prefix) => `${prefix}-${++idCounter}`;

/** "2024-05-01T10:00:00.000Z" → a <time> in the reader's locale. */
export function timeElement(iso) {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime())
    ? iso
    : new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(date);
  return h("time", { datetime: iso, title: iso }, text);
}

/**
 * Field errors. A slot (`data-error-slot="rules.0.percentage"`) shows the message for that path;
 * a control (`data-error-for="rules.0.percentage"`) is marked aria-invalid. A detail whose path
 * has no slot goes to the nearest slot of a parent path (`rules.0.userIds.3` → `rules.0.userIds`),
 * else to the form's summary.
 */
export function clearFieldErrors(root) {
  for (const slot of root.querySelectorAll("[data-error-slot]")) {
    slot.textContent = "";
    slot.hidden = true;
  }
  for (const control of root.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
}

function findSlot(root, path) {
  const parts = path.split(".");
  while (parts.length > 0) {
    const slot = root.querySelector(`[data-error-slot="${CSS.escape(parts.join("."))}"]`);
    if (slot) return { slot, path: parts.join(".") };
    parts.pop();
  }
  return undefined;
}

/** Shows each detail near its field; returns the details no field took and the first invalid control. */
export function showFieldErrors(root, details) {
  const leftover = [];
  let firstControl;
  for (const detail of details) {
    const found = findSlot(root, detail.path ?? "");
    if (!found) {
      leftover.push(detail);
      continue;
    }
    const { slot, path } = found;
    const sub = path === detail.path ? "" : `${detail.path.slice(path.length + 1)}: `;
    const text = `${sub}${detail.message.charAt(0).toUpperCase()}${detail.message.slice(1)}`;
    slot.textContent = slot.hidden ? text : `${slot.textContent} ${text}`;
    slot.hidden = false;
    const control = root.querySelector(`[data-error-for="${CSS.escape(path)}"]`);
    if (control) {
      control.setAttribute("aria-invalid", "true");
      firstControl ??= control;
    }
  }
  return { leftover, firstControl };
}

/** One message under one field, as the client checks it before sending. */
export function setFieldError(root, path, message) {
  return showFieldErrors(root, [{ path, message }]).firstControl;
}
