import { FlagpostError } from "../errors.js";
import type { Variant } from "../flags/schema.js";
import type { Storage, VariantTotals } from "../ports/storage/index.js";
import { parseInput } from "../validation.js";
import { isoFromMs } from "../time.js";
import {
  type ExperimentResults,
  type ExperimentResultsInput,
  experimentIdSchema,
  experimentResultsQuerySchema,
  type VariantResult,
} from "./schema.js";
import { compare, moments, sampleRatioMismatch } from "./stats.js";

/**
 * `fp.experiments.results(id, {metric, control?, from?, to?})`: the database sums each variant
 * (storage.experiments.experimentTotals), the statistics are computed here from those sums.
 * docs/experiments.md is the definition: every formula written out.
 */
export class ExperimentService {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  async results(experimentId: string, input: ExperimentResultsInput): Promise<ExperimentResults> {
    const id = parseInput(experimentIdSchema, experimentId, ["experimentId"]);
    const query = parseInput(experimentResultsQuerySchema, input);
    const { from, to } = query;
    const [flag, totals] = await Promise.all([
      this.#storage.flags.get(id),
      this.#storage.experiments.experimentTotals({ experimentId: id, metric: query.metric, from, to }),
    ]);
    const flagVariants: readonly Variant[] = flag?.variants ?? [];
    if (flagVariants.length === 0 && totals.variants.length === 0 && totals.excludedUsers === 0 && flag === undefined) {
      throw new FlagpostError(
        "not_found",
        `Experiment "${id}" was not found: no flag has this key and no event names it`,
      );
    }
    const keys = variantKeys(flagVariants, totals.variants);
    const control = chooseControl(keys, flagVariants, query.control);
    const byKey = new Map(totals.variants.map((v) => [v.variant, v]));
    const weights = new Map(flagVariants.map((v) => [v.key, v.weight]));
    const empty = (variant: string): VariantTotals => ({
      variant,
      users: 0,
      conversions: 0,
      revenue: 0,
      revenueSquares: 0,
    });
    const sums = keys.map((key) => byKey.get(key) ?? empty(key));
    const controlSums = control === null ? undefined : sums[keys.indexOf(control)];
    const variants = sums.map((s): VariantResult => ({
      key: s.variant,
      weight: weights.get(s.variant) ?? null,
      users: s.users,
      conversions: s.conversions,
      conversionRate: s.users === 0 ? null : s.conversions / s.users,
      revenue: s.revenue,
      revenuePerUser: s.users === 0 ? null : s.revenue / s.users,
      vsControl: controlSums === undefined || s === controlSums ? null : versus(s, controlSums),
    }));
    // Against the flag's weights; equal weights when the experiment is not a flag with variants.
    const srmWeights = flagVariants.length > 0 ? keys.map((key) => weights.get(key) ?? 0) : keys.map(() => 1);
    const srm = sampleRatioMismatch(
      sums.map((s) => s.users),
      srmWeights,
    );
    return {
      experimentId: id,
      metric: query.metric,
      control,
      from: from === undefined ? null : isoFromMs(from),
      to: to === undefined ? null : isoFromMs(to),
      variants,
      srm,
      excludedUsers: totals.excludedUsers,
    };
  }
}

/** The flag's variants in the flag's order, then variants seen only in events, in code-point order. */
function variantKeys(flagVariants: readonly Variant[], seen: readonly VariantTotals[]): string[] {
  const keys = flagVariants.map((v) => v.key);
  const known = new Set(keys);
  const extra = seen.map((v) => v.variant).filter((key) => !known.has(key));
  return [...keys, ...extra.sort(codePointOrder)];
}

function codePointOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** docs/experiments.md: the one asked for; else "control" if present; else the flag's first variant; else the first key in code-point order. */
function chooseControl(
  keys: readonly string[],
  flagVariants: readonly Variant[],
  asked: string | undefined,
): string | null {
  if (asked !== undefined) {
    if (!keys.includes(asked)) {
      const message = `names no variant of this experiment (variants: ${keys.map((k) => JSON.stringify(k)).join(", ") || "none"})`;
      throw new FlagpostError("validation_error", `"control" ${message}`, { details: [{ path: "control", message }] });
    }
    return asked;
  }
  if (keys.includes("control")) return "control";
  if (flagVariants.length > 0) return flagVariants[0]!.key;
  return [...keys].sort(codePointOrder)[0] ?? null;
}

function versus(treatment: VariantTotals, control: VariantTotals): VersusControlShape {
  // Conversion is 0/1 per user, so Σx² = Σx = conversions.
  const conversion = (s: VariantTotals) => moments({ n: s.users, sum: s.conversions, sumSquares: s.conversions });
  const revenue = (s: VariantTotals) => moments({ n: s.users, sum: s.revenue, sumSquares: s.revenueSquares });
  return {
    conversionRate: compare(conversion(treatment), conversion(control)),
    revenuePerUser: compare(revenue(treatment), revenue(control)),
  };
}

type VersusControlShape = NonNullable<VariantResult["vsControl"]>;
