import type { ExperimentResults } from "../src/experiments/index.js";
import type { Flagpost } from "../src/flagpost.js";
import { FlagpostError } from "../src/errors.js";
import { UsageError } from "./args.js";
import type { Output } from "./keys.js";

type Comparison = NonNullable<NonNullable<ExperimentResults["variants"][number]["vsControl"]>["conversionRate"]>;

export interface ResultsOptions {
  metric: string;
  control?: string;
  from?: string;
  to?: string;
  json?: boolean;
}

/** The command's options, checked before the database is opened. */
export function resultsOptions(options: Record<string, string | boolean | undefined>): ResultsOptions {
  const text = (name: string) => (typeof options[name] === "string" ? options[name] : undefined);
  const metric = text("metric");
  if (metric === undefined) throw new UsageError("experiments results needs --metric <event>, e.g. --metric purchase");
  return { metric, control: text("control"), from: text("from"), to: text("to"), json: options.json === true };
}

/**
 * `flagpost experiments results <id> --metric <event>`: the per-variant table of
 * `fp.experiments.results` (docs/experiments.md), or with `--json` the same object the HTTP route
 * answers in `data`. Refused input (a 422 from the service) becomes a usage error naming the option.
 */
export async function experimentResults(fp: Flagpost, id: string, options: ResultsOptions, io: Output): Promise<void> {
  let results: ExperimentResults;
  try {
    results = await fp.experiments.results(id, {
      metric: options.metric,
      ...(options.control === undefined ? {} : { control: options.control }),
      ...(options.from === undefined ? {} : { from: options.from }),
      ...(options.to === undefined ? {} : { to: options.to }),
    });
  } catch (error) {
    if (error instanceof FlagpostError && error.code === "validation_error") {
      const detail = error.details?.[0];
      const option = detail?.path === "experimentId" ? "the experiment id" : `--${detail?.path ?? ""}`;
      throw new UsageError(detail ? `${option} ${detail.message}` : error.message);
    }
    throw error;
  }
  if (options.json) {
    io.out(JSON.stringify(results, null, 2));
    return;
  }
  for (const line of resultsTable(results)) io.out(line);
}

/** The results as aligned text: a heading, a conversion table, a revenue table, the SRM verdict. */
function resultsTable(results: ExperimentResults): string[] {
  const window =
    results.from === null && results.to === null
      ? "all events"
      : `events from ${results.from ?? "the start"} to ${results.to ?? "now"}`;
  const lines = [
    `Experiment ${JSON.stringify(results.experimentId)}, metric ${JSON.stringify(results.metric)}, ` +
      `control ${results.control === null ? "none" : JSON.stringify(results.control)}, ${window}`,
    "",
  ];
  if (results.variants.length === 0) {
    lines.push("No variants and no users yet.");
    return lines;
  }
  const head = ["difference", "95% interval", "uplift", "p-value", "chance to beat control"];
  lines.push("Conversion");
  lines.push(
    ...align([
      ["variant", "weight", "users", "conversions", "rate", ...head],
      ...results.variants.map((v) => [
        v.key,
        v.weight === null ? "–" : String(v.weight),
        String(v.users),
        String(v.conversions),
        v.conversionRate === null ? "–" : percent(v.conversionRate),
        ...comparisonCells(v.vsControl?.conversionRate, v.vsControl === null, points),
      ]),
    ]),
  );
  lines.push("", "Revenue per user");
  lines.push(
    ...align([
      ["variant", "users", "revenue", "per user", ...head],
      ...results.variants.map((v) => [
        v.key,
        String(v.users),
        money(v.revenue),
        v.revenuePerUser === null ? "–" : money(v.revenuePerUser),
        ...comparisonCells(v.vsControl?.revenuePerUser, v.vsControl === null, signedMoney),
      ]),
    ]),
  );
  const { srm } = results;
  lines.push("");
  if (srm.pValue === null) lines.push("Sample ratio: not checked (fewer than two weighted variants, or no users).");
  else if (srm.detected)
    lines.push(
      `SAMPLE RATIO MISMATCH: chi-square ${srm.chiSquare.toFixed(4)}, df ${srm.degreesOfFreedom}, p ${pValue(srm.pValue)} (below 0.001). ` +
        "Users did not reach the variants in the assigned proportions: do not trust the numbers above (docs/experiments.md).",
    );
  else
    lines.push(
      `Sample ratio: chi-square ${srm.chiSquare.toFixed(4)}, df ${srm.degreesOfFreedom}, p ${pValue(srm.pValue)}: no mismatch.`,
    );
  lines.push(`Users left out (seen in two variants): ${results.excludedUsers}`);
  return lines;
}

/** "control" on the control row, "–" where a statistic is undefined (docs/experiments.md, degenerate groups). */
function comparisonCells(c: Comparison | null | undefined, isControl: boolean, unit: (n: number) => string): string[] {
  if (isControl) return ["control", "", "", "", ""];
  if (c === null || c === undefined) return ["–", "–", "–", "–", "–"];
  return [
    unit(c.difference),
    c.differenceCI95 === null ? "–" : `[${unit(c.differenceCI95[0])}, ${unit(c.differenceCI95[1])}]`,
    c.relativeUplift === null ? "–" : signed(c.relativeUplift * 100, 2) + "%",
    c.pValue === null ? "–" : pValue(c.pValue),
    c.chanceToBeatControl === null ? "–" : percent(c.chanceToBeatControl),
  ];
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;
const signed = (n: number, digits: number) => `${n >= 0 ? "+" : "-"}${Math.abs(n).toFixed(digits)}`;
/** A difference of two rates, in percentage points. */
const points = (fraction: number) => `${signed(fraction * 100, 2)} pp`;
const money = (n: number) => n.toFixed(2);
const signedMoney = (n: number) => signed(n, 2);
const pValue = (p: number) => (p < 1e-15 ? "< 1e-15" : p < 0.0001 ? p.toExponential(2) : p.toFixed(4));

/** Left-aligned text columns, two spaces apart, without trailing blanks. */
function align(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? "")].length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell + " ".repeat(widths[column]! - [...cell].length))
      .join("  ")
      .trimEnd(),
  );
}
