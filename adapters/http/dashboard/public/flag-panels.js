// What an existing flag shows beside its form: the Settings / History tabs, the evaluations
// panel and the scheduled changes. Switching tabs keeps the form as it is (edits stay) and puts
// the tab into the address with replaceState, so a reload or a shared link opens the same tab
// (`#/flags/{key}/history`) without a hashchange that would leave the form.

import { $, show } from "./dom.js";
import { FlagHistory } from "./flag-history.js";
import { FlagInsightsPanel } from "./flag-insights.js";
import { FlagSchedules } from "./flag-schedules.js";

const TABS = { settings: ["#tab-settings", "#editor-body"], history: ["#tab-history", "#history-panel"] };

/** `#/flags/{key}` or `#/flags/{key}/history` (keys never hold "/") → the key and the tab. */
export function splitFlagPath(path) {
  const match = /^(.+)\/history$/.exec(path);
  return match ? { key: match[1], tab: "history" } : { key: path, tab: "settings" };
}

export class FlagPanels {
  #key;
  #tab = "settings";
  #history;
  #insights;
  #schedules;

  constructor({ onError, onStatus, formChanges }) {
    this.#history = new FlagHistory({ onError });
    this.#insights = new FlagInsightsPanel({ onError });
    this.#schedules = new FlagSchedules({ onError, onStatus, formChanges });
    for (const [name, [tab]] of Object.entries(TABS)) {
      $(tab).addEventListener("click", () => this.select(name, { focusTab: true }));
    }
    // Arrow keys move between the tabs (the WAI-ARIA tabs pattern); Tab goes into the panel.
    $("#flag-tabs").addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight" && event.key !== "Home" && event.key !== "End")
        return;
      event.preventDefault();
      const names = Object.keys(TABS);
      const at = names.indexOf(this.#tab);
      const next =
        event.key === "Home"
          ? 0
          : event.key === "End"
            ? names.length - 1
            : (at + (event.key === "ArrowRight" ? 1 : names.length - 1)) % names.length;
      this.select(names[next], { focusTab: true });
    });
  }

  /** A saved flag is shown: tabs, evaluations and schedules for it, on the tab asked for (else as it was). */
  showFlag(flag, writable, tab) {
    const changed = this.#key !== flag.key;
    this.#key = flag.key;
    show($("#flag-tabs"), true);
    $("#editor-body").setAttribute("role", "tabpanel");
    $("#editor-body").setAttribute("aria-labelledby", "tab-settings");
    show($("#insights-panel"), true);
    show($("#schedules-panel"), true);
    if (changed) {
      void this.#insights.load(flag.key);
      void this.#schedules.load(flag.key, writable);
    }
    this.select(tab ?? (changed ? "settings" : this.#tab), { updateUrl: false });
  }

  /** A new flag, a missing one, or one loading: nothing of another flag stays. */
  hide() {
    this.#key = undefined;
    this.#tab = "settings";
    show($("#flag-tabs"), false);
    show($("#history-panel"), false);
    $("#editor-body").removeAttribute("role");
    $("#editor-body").removeAttribute("aria-labelledby");
    show($("#insights-panel"), false);
    show($("#schedules-panel"), false);
    this.#history.clear();
    this.#insights.clear();
    this.#schedules.clear();
  }

  /** No flag has `key`: its history, kept after deletion, shows alone if it has one. */
  showDeletedHistory(key) {
    show($("#history-panel"), true);
    void this.#history.load(key, () => show($("#history-panel"), false));
  }

  /** The flag changed (saved, switched): a visible history shows the new entry. */
  changed() {
    if (this.#key !== undefined && this.#tab === "history") void this.#history.load(this.#key);
  }

  select(name, { updateUrl = true, focusTab = false } = {}) {
    if (this.#key === undefined) return;
    this.#tab = name;
    for (const [other, [tab, panel]] of Object.entries(TABS)) {
      const selected = other === name;
      $(tab).setAttribute("aria-selected", String(selected));
      $(tab).tabIndex = selected ? 0 : -1;
      show($(panel), selected);
    }
    if (focusTab) $(TABS[name][0]).focus();
    if (updateUrl) {
      const base = `#/flags/${encodeURIComponent(this.#key)}`;
      history.replaceState(history.state, "", name === "history" ? `${base}/history` : base);
    }
    if (name === "history") void this.#history.load(this.#key);
  }
}
