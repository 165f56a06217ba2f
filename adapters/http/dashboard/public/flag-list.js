// The flag list: key (with a Stale badge), description, the last 7 days of evaluations, enabled
// switch, created time; search by key; paging.

import { api } from "./api.js";
import { $, h, show, timeElement } from "./dom.js";
import { ListSparklines } from "./list-sparklines.js";

// docs/flags.md "Insights": the list's `stale` says yes or no; the flag's page says why.
const STALE_HELP =
  "Stale: not evaluated, or giving every user the same answer, for the stale period (30 days unless configured). Open the flag for details.";

export class FlagList {
  #flags = [];
  #next;
  #loaded = false;
  #writable = true;
  #sparklines = new ListSparklines();
  #onError;
  #onStatus;

  constructor({ onError, onStatus }) {
    this.#onError = onError;
    this.#onStatus = onStatus;
    $("#search").addEventListener("input", () => this.#render());
    $("#load-more").addEventListener("click", () => this.#loadMore());
  }

  /** Whether the key may change flags: without flags:write the switches only show the state. */
  setWritable(writable) {
    this.#writable = writable;
    show($("#new-flag"), writable);
  }

  /** Loads the first page again (after a write elsewhere, or on opening the view). */
  async load() {
    show($("#list-loading"), !this.#loaded);
    try {
      const page = await api.listFlags();
      this.#flags = page.flags;
      this.#next = page.next;
      this.#loaded = true;
      this.#sparklines.reset();
      this.#render();
    } catch (error) {
      this.#onError(error);
    } finally {
      show($("#list-loading"), false);
    }
  }

  async #loadMore() {
    const button = $("#load-more");
    button.disabled = true;
    try {
      const page = await api.listFlags({ cursor: this.#next });
      this.#flags.push(...page.flags);
      this.#next = page.next;
      this.#render();
      // Move on to the first row just added, so a keyboard user continues where the page grew.
      const rows = $("#flag-rows").children;
      rows[rows.length - page.flags.length]?.querySelector("a")?.focus();
    } catch (error) {
      this.#onError(error);
    } finally {
      button.disabled = false;
    }
  }

  #render() {
    const query = $("#search").value.trim().toLowerCase();
    const shown = query ? this.#flags.filter((f) => f.key.toLowerCase().includes(query)) : this.#flags;
    const empty = this.#loaded && this.#flags.length === 0 && !this.#next;
    show($("#empty-state"), empty);
    show($("#search-field"), !empty);
    show($("#flag-table"), shown.length > 0);
    const noMatch = $("#no-match");
    noMatch.textContent = `No flag key contains “${query}”.`;
    show(noMatch, this.#flags.length > 0 && shown.length === 0);
    show($("#load-more"), Boolean(this.#next));
    const scope = $("#search-scope");
    scope.textContent = `Search covers the ${this.#flags.length} flags loaded so far; load more to search further.`;
    show(scope, Boolean(this.#next) && query !== "");
    $("#flag-rows").replaceChildren(...shown.map((flag) => this.#row(flag)));
  }

  #row(flag) {
    const switchId = `enabled-${flag.id}`;
    const toggle = h("input", {
      id: switchId,
      type: "checkbox",
      role: "switch",
      class: "switch",
      checked: flag.enabled,
      disabled: !this.#writable,
      "aria-label": `Enabled: ${flag.key}`,
      onchange: (event) => this.#toggle(flag, event.target),
    });
    return h(
      "tr",
      { "data-key": flag.key },
      h(
        "td",
        { class: "cell-key", "data-label": "Key" },
        h("a", { href: `#/flags/${encodeURIComponent(flag.key)}` }, flag.key),
        flag.stale ? h("span", { class: "badge badge-stale", title: STALE_HELP }, "Stale") : undefined,
      ),
      h(
        "td",
        { class: "cell-description", "data-label": "Description" },
        flag.description || h("span", { class: "muted" }, "No description"),
      ),
      this.#sparklines.cell(flag.key),
      h(
        "td",
        { class: "cell-enabled", "data-label": "Enabled" },
        h(
          "span",
          { class: "switch-cell" },
          toggle,
          h("span", { class: "switch-text", "aria-hidden": "true" }, flag.enabled ? "On" : "Off"),
        ),
      ),
      h("td", { class: "cell-created", "data-label": "Created" }, timeElement(flag.createdAt)),
    );
  }

  async #toggle(flag, input) {
    const wanted = input.checked;
    input.disabled = true;
    try {
      const updated = await api.updateFlag(flag.key, { enabled: wanted });
      flag.enabled = updated.enabled;
      input.nextElementSibling.textContent = flag.enabled ? "On" : "Off";
      this.#onStatus(`${flag.key} is now ${flag.enabled ? "on" : "off"}.`);
    } catch (error) {
      input.checked = flag.enabled;
      this.#onError(error);
    } finally {
      input.disabled = false;
      input.focus();
    }
  }
}
