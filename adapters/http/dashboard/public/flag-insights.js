// A flag's evaluations (GET /v1/flags/{key}/insights): a sparkline of the last 7 days by hour,
// totals with the per-variant split of the "on" answers, when it was last evaluated, whether it is
// stale (with the reason), and how often the server stores the counts (its flushIntervalMs).

import { $, h, show, timeElement } from "./dom.js";
import { flagApi } from "./flag-api.js";
import { hourlyCounts, sparkline } from "./sparkline.js";

const HOUR_MS = 3_600_000;
const HOURS = 7 * 24;

function staleText(insights) {
  if (!insights.stale) return "";
  if (insights.reason === "constant")
    return `Stale: every evaluation in the stale window answered ${insights.result}. The flag may be ready to remove from the code.`;
  return "Stale: not evaluated in the stale window. Nothing may be asking for it any more.";
}

/** The last 7 days of a flag's evaluations, hour by hour, ending with the current hour. */
export async function lastWeek(key) {
  const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
  const start = end - HOURS * HOUR_MS;
  const insights = await flagApi.insights(key, {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
  });
  const counts = hourlyCounts(insights.hours, start, HOURS);
  return { insights, counts, total: counts.reduce((a, b) => a + b, 0) };
}

/** "every minute", "every 5 seconds", "every 1.5 minutes": how often the server stores counts. */
export function flushText(ms) {
  const [value, unit] =
    ms % 3_600_000 === 0 ? [ms / 3_600_000, "hour"] : ms >= 60_000 ? [ms / 60_000, "minute"] : [ms / 1000, "second"];
  const amount = Math.round(value * 100) / 100;
  return amount === 1 ? `every ${unit}` : `every ${amount} ${unit}s`;
}

/** The "on" answers per variant over the hours read, largest first. */
function variantTotals(hours) {
  const totals = new Map();
  for (const hour of hours)
    for (const [variant, count] of Object.entries(hour.variants ?? {}))
      totals.set(variant, (totals.get(variant) ?? 0) + count);
  return [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** The sparkline's label: what it shows, for screen readers and on hover. */
export const weekLabel = (counts, total) =>
  `Evaluations per hour over the last 7 days: ${total} in all, at most ${Math.max(...counts)} in one hour`;

export class FlagInsightsPanel {
  #key;
  #loading = 0;
  #onError;

  constructor({ onError }) {
    this.#onError = onError;
    $("#insights-refresh").addEventListener("click", () => void this.load(this.#key));
  }

  async load(key) {
    this.#key = key;
    if (key === undefined) return;
    const token = ++this.#loading;
    $("#insights-refresh").disabled = true;
    try {
      const week = await lastWeek(key);
      if (token === this.#loading) this.#show(week);
    } catch (error) {
      if (token === this.#loading) this.#onError(error);
    } finally {
      $("#insights-refresh").disabled = false;
    }
  }

  clear() {
    this.#key = undefined;
    this.#loading++;
    $("#insights-chart").replaceChildren();
  }

  #show({ insights, counts, total }) {
    const on = insights.hours.reduce((a, r) => a + r.on, 0);
    const off = insights.hours.reduce((a, r) => a + r.off, 0);
    const chart = $("#insights-chart");
    const summary = $("#insights-summary");
    if (total === 0) {
      chart.replaceChildren();
      summary.replaceChildren("No evaluations stored in the last 7 days.");
    } else {
      chart.replaceChildren(sparkline(counts, weekLabel(counts, total)));
      summary.replaceChildren(
        `${total} evaluation${total === 1 ? "" : "s"} in the last 7 days (${on} on, ${off} off).`,
      );
    }
    if (insights.lastEvaluatedAt) summary.append(" Last evaluated ", timeElement(insights.lastEvaluatedAt), ".");
    const variants = variantTotals(insights.hours);
    const list = $("#insights-variants");
    list.replaceChildren(
      ...variants.map(([variant, count]) =>
        h(
          "li",
          { "data-variant": variant },
          h("span", { class: "mono" }, variant),
          `: ${count} (${on > 0 ? Math.round((count / on) * 100) : 0}%)`,
        ),
      ),
    );
    show(list, variants.length > 0);
    $("#insights-flush").textContent =
      `Counts are stored ${flushText(insights.flushIntervalMs)} (FLAGPOST_INSIGHTS_FLUSH_MS): the newest may not be here yet.`;
    show(chart, total > 0);
    const stale = $("#insights-stale");
    stale.textContent = staleText(insights);
    show(stale, insights.stale);
  }
}
