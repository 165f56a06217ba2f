// A flag's experiment: pick a metric (and a control), then see what
// GET /v1/experiments/{id}/results answers (docs/experiments.md): per variant users, conversion
// rate and revenue per user, each with its 95 % interval against the control, the chance to beat
// the control, and the sample-ratio check, which warns loudly when it fails.

import { api } from "./api.js";
import { $, clearFieldErrors, h, setFieldError, show, showFieldErrors } from "./dom.js";
import { intervalChart } from "./experiment-chart.js";
import { money, pEquals, percent, points, pValue, signedMoney } from "./experiment-format.js";

const DASH = "–";

/** A table cell showing `text`, carrying the API's exact value for whoever checks it. */
function cell(field, text, value) {
  return h("td", { "data-field": field, "data-value": value === undefined ? undefined : JSON.stringify(value) }, text);
}

/** The four cells of a comparison with the control; the control row says what it is. */
function comparisonCells(comparison, isControl, unit) {
  if (isControl)
    return [h("td", { colspan: 4, class: "muted" }, "the control: every other variant is compared with it")];
  if (!comparison) return ["difference", "interval", "pValue", "chance"].map((f) => cell(f, DASH, null));
  const { difference, differenceCI95: ci, pValue: p, chanceToBeatControl: chance } = comparison;
  return [
    cell("difference", unit(difference), difference),
    cell("interval", ci ? `${unit(ci[0])} to ${unit(ci[1])}` : DASH, ci),
    cell("pValue", p === null ? DASH : pValue(p), p),
    cell("chance", chance === null ? DASH : percent(chance), chance),
  ];
}

function verdict(ci) {
  if (!ci) return "unclear";
  return ci[0] > 0 ? "better" : ci[1] < 0 ? "worse" : "unclear";
}

/** Chart rows: each variant's value, and its interval as the control's value + differenceCI95. */
function chartRows(results, value, measure) {
  const control = results.variants.find((v) => v.key === results.control);
  const base = control ? value(control) : null;
  return results.variants.map((v) => {
    const ci = v.vsControl?.[measure]?.differenceCI95 ?? null;
    const interval = ci && base !== null ? [base + ci[0], base + ci[1]] : [null, null];
    return {
      key: v.key,
      value: value(v),
      low: interval[0],
      high: interval[1],
      control: v.key === results.control,
      verdict: verdict(ci),
    };
  });
}

/** Each row's cells name their column (data-label): below 640 px the rows become labelled cards. */
function labelCells(head, rows) {
  for (const row of rows) {
    let column = 0;
    for (const cellEl of row.children) {
      if (column > 0 && (cellEl.colSpan || 1) === 1) cellEl.dataset.label = head[column];
      column += cellEl.colSpan || 1;
    }
  }
  return rows;
}

function table(head, rows) {
  labelCells(head, rows);
  return [
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        head.map((label) => h("th", { scope: "col" }, label)),
      ),
    ),
    h("tbody", {}, rows),
  ];
}

const COMPARISON_HEAD = ["Difference", "95% interval", "p-value", "Chance to beat control"];

export class ExperimentView {
  #key;
  #onError;
  #navigate;

  constructor({ onError, navigate }) {
    this.#onError = onError;
    this.#navigate = navigate;
    $("#experiment-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.#submit();
    });
  }

  /** Shows the experiment of flag `key`; with a `metric` in `params`, its results too. */
  async open(key, params) {
    this.#key = key;
    const form = $("#experiment-form");
    clearFieldErrors(form);
    show($("#experiment-results"), false);
    show($("#experiment-error"), false);
    $("#experiment-title").textContent = `Experiment: ${key}`;
    const back = $("#experiment-back");
    back.href = `#/flags/${encodeURIComponent(key)}`;
    back.textContent = `← ${key}`;
    const metric = params.get("metric") ?? "";
    const control = params.get("control") ?? "";
    $("#experiment-metric").value = metric;
    let flag;
    try {
      flag = await api.getFlag(key);
    } catch (error) {
      if (error.code !== "not_found") return this.#onError(error);
    }
    const variants = flag?.variants ?? [];
    const note = $("#experiment-no-variants");
    note.textContent =
      flag === undefined
        ? `No flag has the key “${key}”: results come from events that name it as their experimentId.`
        : `${key} has no variants: results come from events that name it as their experimentId.`;
    show(note, variants.length === 0);
    const choices = variants.map((v) => v.key);
    if (control !== "" && !choices.includes(control)) choices.push(control);
    $("#experiment-control").replaceChildren(
      h("option", { value: "" }, "Default (“control”, else the first)"),
      ...choices.map((choice) => h("option", { value: choice, selected: choice === control }, choice)),
    );
    if (metric !== "") await this.#load(metric, control);
  }

  #submit() {
    const form = $("#experiment-form");
    clearFieldErrors(form);
    const metric = $("#experiment-metric").value.trim();
    if (metric === "") {
      setFieldError(form, "metric", "Enter the event that counts as a conversion, such as purchase");
      $("#experiment-metric").focus();
      return;
    }
    const query = new URLSearchParams({ metric });
    const control = $("#experiment-control").value;
    if (control !== "") query.set("control", control);
    // The choice goes into the address, so a reload or a shared link shows the same results.
    this.#navigate(`#/flags/${encodeURIComponent(this.#key)}/experiment?${query}`);
  }

  async #load(metric, control) {
    const box = $("#experiment-error");
    show($("#experiment-loading"), true);
    try {
      const query = { metric, control: control === "" ? undefined : control };
      this.#render(await api.experimentResults(this.#key, query));
    } catch (error) {
      if (error.isAuth) return this.#onError(error);
      const { leftover } =
        error.code === "validation_error"
          ? showFieldErrors($("#experiment-form"), error.details)
          : { leftover: [error] };
      if (leftover.length === 0) return;
      box.textContent =
        error.code === "restricted_api_key"
          ? `This key cannot read experiment results: ${error.message} (results read events).`
          : error.message;
      show(box, true);
    } finally {
      show($("#experiment-loading"), false);
    }
  }

  #render(results) {
    const users = results.variants.reduce((sum, v) => sum + v.users, 0);
    const { srm } = results;
    const srmBox = $("#experiment-srm");
    srmBox.textContent = srm.detected
      ? `Sample ratio mismatch: users reached the variants in other proportions than their weights ` +
        `(chi-square ${srm.chiSquare.toFixed(2)}, ${pEquals(srm.pValue)}, below 0.001). ` +
        "Do not trust these results: find the cause first (docs/experiments.md, “Sample ratio mismatch”)."
      : "";
    show(srmBox, srm.detected);
    const srmLine =
      srm.pValue === null
        ? "Sample ratio not checked (fewer than two weighted variants, or no users)."
        : srm.detected
          ? ""
          : `Sample ratio check: ${pEquals(srm.pValue)}, no mismatch.`;
    $("#experiment-summary").textContent =
      `${users} users in ${results.variants.length} variants, metric “${results.metric}”, ` +
      `control “${results.control ?? DASH}”. ${results.excludedUsers} users seen in two variants are left out. ${srmLine}`;

    const isControl = (v) => v.key === results.control;
    const nameCell = (v) =>
      h("th", { scope: "row" }, v.key, isControl(v) ? h("span", { class: "badge" }, "control") : undefined);
    $("#conversion-table").replaceChildren(
      ...table(
        ["Variant", "Weight", "Users", "Conversions", "Conversion rate", ...COMPARISON_HEAD],
        results.variants.map((v) =>
          h(
            "tr",
            { "data-variant": v.key },
            nameCell(v),
            cell("weight", v.weight === null ? DASH : `${v.weight}%`, v.weight),
            cell("users", String(v.users), v.users),
            cell("conversions", String(v.conversions), v.conversions),
            cell("rate", v.conversionRate === null ? DASH : percent(v.conversionRate), v.conversionRate),
            ...comparisonCells(v.vsControl?.conversionRate, isControl(v), points),
          ),
        ),
      ),
    );
    $("#revenue-table").replaceChildren(
      ...table(
        ["Variant", "Users", "Revenue", "Revenue per user", ...COMPARISON_HEAD],
        results.variants.map((v) =>
          h(
            "tr",
            { "data-variant": v.key },
            nameCell(v),
            cell("users", String(v.users), v.users),
            cell("revenue", money(v.revenue), v.revenue),
            cell("perUser", v.revenuePerUser === null ? DASH : money(v.revenuePerUser), v.revenuePerUser),
            ...comparisonCells(v.vsControl?.revenuePerUser, isControl(v), signedMoney),
          ),
        ),
      ),
    );
    show($("#experiment-results"), true); // laid out first: the charts take their container's width
    $("#conversion-chart").replaceChildren(
      intervalChart({
        title: "Conversion rate per variant, with the 95% interval of each difference to the control",
        rows: chartRows(results, (v) => v.conversionRate, "conversionRate"),
        format: (x) => `${(x * 100).toFixed(1)}%`,
        width: $("#conversion-title").clientWidth,
      }),
    );
    $("#revenue-chart").replaceChildren(
      intervalChart({
        title: "Revenue per user per variant, with the 95% interval of each difference to the control",
        rows: chartRows(results, (v) => v.revenuePerUser, "revenuePerUser"),
        format: money,
        width: $("#revenue-title").clientWidth,
      }),
    );
  }
}
