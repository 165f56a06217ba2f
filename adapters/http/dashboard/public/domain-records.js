// A domain's DNS records as a table to publish from: type, name, value, TTL or priority, and the
// status the last verification gave each, with a Copy button for the name and the value.

import { statusChip } from "./domain-status.js";
import { h } from "./dom.js";
import { cell, dataTable } from "./page-kit.js";

/**
 * Puts `text` on the clipboard. navigator.clipboard needs a secure context (HTTPS or localhost)
 * and the page's permission; without it the text shown in `shown` is selected and copied the old
 * way (execCommand), and when even that is refused it stays selected for Ctrl+C. Answers what
 * happened: "copied" or "selected".
 */
async function copyText(text, shown) {
  try {
    await navigator.clipboard.writeText(text);
    return "copied";
  } catch {
    const selection = window.getSelection();
    selection.selectAllChildren(shown);
    try {
      return document.execCommand("copy") ? "copied" : "selected";
    } catch {
      return "selected";
    }
  }
}

function copyButton(label, text, shown, onStatus) {
  const button = h(
    "button",
    { type: "button", class: "button button-small copy-button", "aria-label": `Copy ${label}` },
    "Copy",
  );
  button.addEventListener("click", async () => {
    const outcome = await copyText(text, shown);
    onStatus(
      outcome === "copied"
        ? `Copied ${label}.`
        : `Could not reach the clipboard: ${label} is selected, press Ctrl+C (⌘C) to copy it.`,
    );
    if (outcome === "copied") {
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = "Copy"), 2000);
    }
  });
  return button;
}

/** `records` of GET /v1/domains/{id} as a table; `onStatus` hears what a Copy did. */
export function recordsTable(domain, onStatus) {
  const { table, body } = dataTable(`DNS records of ${domain.name}`, [
    "Record",
    "Type",
    "Name",
    "Value",
    "TTL",
    "Priority",
    "Status",
  ]);
  table.classList.add("records-table");
  table.hidden = false;
  body.append(
    ...domain.records.map((record, index) => {
      const what = `the ${record.record} ${record.type} record's`;
      const name = h("code", { class: "record-name" }, record.name);
      const value = h("code", { class: "record-value" }, record.value);
      return h(
        "tr",
        { "data-record": `${record.record}-${record.type}`, "data-index": String(index) },
        cell("Record", record.record),
        cell("Type", record.type),
        cell("Name", h("div", { class: "copyable" }, name, copyButton(`${what} name`, record.name, name, onStatus))),
        cell(
          "Value",
          h("div", { class: "copyable" }, value, copyButton(`${what} value`, record.value, value, onStatus)),
        ),
        cell("TTL", record.ttl),
        cell("Priority", record.priority === undefined ? h("span", { class: "muted" }, "—") : String(record.priority)),
        cell("Status", statusChip("record", record.status)),
      );
    }),
  );
  return table;
}
