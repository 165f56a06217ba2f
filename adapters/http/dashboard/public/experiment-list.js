// The Experiments page (#/experiments): every flag with variants, from one
// GET /v1/flags/_snapshot (flags:read, which any key that connects has), each linked to its
// results (#/flags/{key}/experiment).

import { mailApi } from "./mail-api.js";
import { h, show } from "./dom.js";
import { cell, chip, dataTable, pageSection } from "./page-kit.js";

export class ExperimentList {
  #onError;
  #ui;

  constructor({ onError }) {
    this.#onError = onError;
    const { table, body } = dataTable("Experiments", ["Flag", "Variants (weight)", "Enabled"]);
    const empty = h(
      "div",
      { class: "panel empty", hidden: true },
      h("h2", {}, "No experiments yet"),
      h(
        "p",
        {},
        "An experiment is a flag with variants: give a flag variants and weights, then read its results here.",
      ),
    );
    const loading = h("p", { class: "hint", hidden: true }, "Loading experiments…");
    const { section, heading } = pageSection("experiments-view", "Experiments", {}, loading, empty, table);
    this.#ui = { section, heading, table, body, empty, loading };
  }

  async open() {
    const ui = this.#ui;
    ui.heading.focus();
    show(ui.loading, true);
    try {
      const { flags } = await mailApi.flagSnapshot();
      const experiments = flags.filter((flag) => flag.variants?.length > 0);
      show(ui.empty, experiments.length === 0);
      show(ui.table, experiments.length > 0);
      ui.body.replaceChildren(
        ...experiments.map((flag) =>
          h(
            "tr",
            { "data-key": flag.key },
            cell(
              "Flag",
              h("a", { class: "mono", href: `#/flags/${encodeURIComponent(flag.key)}/experiment` }, flag.key),
            ),
            cell("Variants (weight)", flag.variants.map((v) => `${v.key} (${v.weight}\u00a0%)`).join(", ")), // "50 %" never splits
            cell("Enabled", chip("flag", flag.enabled ? "enabled" : "disabled", flag.enabled ? "On" : "Off")),
          ),
        ),
      );
    } catch (error) {
      this.#onError(error);
    } finally {
      show(ui.loading, false);
    }
  }
}
