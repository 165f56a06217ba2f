// The History tab of a flag: every write, newest first (GET /v1/flags/{key}/history), each with
// who made it, when, and what changed, before → after. Older pages load on demand.

import { $, h, show, timeElement } from "./dom.js";
import { flagApi } from "./flag-api.js";
import { describeEntry } from "./history-diff.js";

function changeItem(line) {
  const parts = [h("span", { class: "change-label" }, line.label)];
  if (line.before !== undefined || line.after !== undefined) parts.push(": ");
  if (line.before !== undefined) parts.push(h("del", { class: "change-before" }, line.before));
  if (line.before !== undefined && line.after !== undefined) parts.push(h("span", { "aria-hidden": "true" }, " → "));
  if (line.before !== undefined && line.after !== undefined)
    parts.push(h("span", { class: "sr-only" }, " changed to "));
  if (line.after !== undefined) parts.push(h("ins", { class: "change-after" }, line.after));
  return h("li", { class: "change" }, parts);
}

function entryElement(entry) {
  const { title, actor, lines } = describeEntry(entry);
  return h(
    "li",
    { class: `history-entry history-${entry.action}`, "data-entry-id": entry.id },
    h(
      "p",
      { class: "history-head" },
      h("strong", {}, title),
      " by ",
      h("span", { class: "history-actor" }, actor),
      " · ",
      timeElement(entry.at),
    ),
    lines.length > 0
      ? h("ul", { class: "changes" }, lines.map(changeItem))
      : h("p", { class: "hint" }, "No field changed."),
  );
}

export class FlagHistory {
  #key;
  #next;
  #onError;
  #loading = 0; // bumped per load, so an answer for a flag no longer shown is dropped
  #onMissing;

  constructor({ onError }) {
    this.#onError = onError;
    $("#history-more").addEventListener("click", () => void this.#page(this.#loading, false));
  }

  /**
   * Loads the first page for `key` (again, so a change just saved shows). `onMissing()` takes a
   * 404 (neither flag nor history) instead of the error handler.
   */
  async load(key, onMissing) {
    this.#key = key;
    this.#onMissing = onMissing;
    $("#history-list").replaceChildren();
    show($("#history-empty"), false);
    show($("#history-more"), false);
    await this.#page(++this.#loading, true);
  }

  clear() {
    this.#key = undefined;
    this.#loading++;
    $("#history-list").replaceChildren();
  }

  async #page(token, first) {
    const key = this.#key;
    if (key === undefined) return;
    show($("#history-loading"), true);
    $("#history-more").disabled = true;
    try {
      const page = await flagApi.history(key, { cursor: first ? undefined : this.#next });
      if (token !== this.#loading) return;
      this.#next = page.next;
      $("#history-list").append(...page.entries.map(entryElement));
      show($("#history-empty"), first && page.entries.length === 0);
      show($("#history-more"), Boolean(page.next));
    } catch (error) {
      if (token !== this.#loading) return;
      if (error.code === "not_found" && this.#onMissing) this.#onMissing();
      else this.#onError(error);
    } finally {
      show($("#history-loading"), false);
      $("#history-more").disabled = false;
    }
  }
}
