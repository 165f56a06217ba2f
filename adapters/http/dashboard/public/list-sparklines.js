// The list's "Last 7 days" column: one sparkline per flag shown, from that flag's insights
// route (there is no route for many flags at once). At most four requests are in flight; a
// flag's answer is kept until the list is loaded again, so searching does not ask twice, and an
// answer for a list since reloaded is dropped.

import { h } from "./dom.js";
import { lastWeek, weekLabel } from "./flag-insights.js";
import { sparkline } from "./sparkline.js";

const IN_FLIGHT = 4;

export class ListSparklines {
  #cache = new Map(); // key → {counts, total} or {failed}
  #cells = new Map(); // key → the cell now showing that flag
  #queue = [];
  #running = 0;
  #generation = 0;

  /** The list was loaded again: counts are asked afresh. */
  reset() {
    this.#generation++;
    this.#cache.clear();
    this.#cells.clear();
    this.#queue = [];
    this.#running = 0;
  }

  /** A cell for `key`'s sparkline, filled now from the cache or when its answer comes. */
  cell(key) {
    const cell = h("td", { class: "cell-activity", "data-label": "Last 7 days" });
    this.#cells.set(key, cell);
    const known = this.#cache.get(key);
    if (known) this.#fill(cell, known);
    else {
      cell.append(h("span", { class: "muted" }, "…"));
      if (!this.#queue.includes(key)) this.#queue.push(key);
      this.#pump();
    }
    return cell;
  }

  #pump() {
    while (this.#running < IN_FLIGHT && this.#queue.length > 0) {
      const key = this.#queue.shift();
      if (this.#cache.has(key)) continue;
      const generation = this.#generation;
      this.#running++;
      lastWeek(key)
        .then(
          ({ counts, total }) => ({ counts, total }),
          (error) => ({ failed: error.message }),
        )
        .then((week) => {
          if (generation !== this.#generation) return;
          this.#running--;
          this.#cache.set(key, week);
          const cell = this.#cells.get(key);
          if (cell?.isConnected) this.#fill(cell, week);
          this.#pump();
        });
    }
  }

  #fill(cell, week) {
    if (week.failed) cell.replaceChildren(h("span", { class: "muted", title: week.failed }, "—"));
    else if (week.total === 0) cell.replaceChildren(h("span", { class: "muted" }, "No evaluations"));
    else {
      const label = weekLabel(week.counts, week.total);
      cell.replaceChildren(sparkline(week.counts, label), h("span", { class: "activity-total" }, String(week.total)));
    }
  }
}
