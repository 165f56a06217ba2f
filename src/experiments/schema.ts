import { z } from "zod";
import { boundSchema, eventNameSchema, refineWindow } from "../events/schema.js";
import { flagKeySchema } from "../flags/schema.js";
import type { Comparison, SrmResult } from "./stats.js";

/** An experiment id: any `properties.experimentId` a client may send (a flag key, for flags with variants). */
export const experimentIdSchema = eventNameSchema;

/** What `results` takes; over HTTP every value arrives as a string. */
export const experimentResultsQuerySchema = z
  .strictObject({
    metric: eventNameSchema,
    control: flagKeySchema.optional(),
    from: boundSchema.optional(),
    to: boundSchema.optional(),
  })
  .superRefine(refineWindow);

/**
 * What `results` takes: `metric`, the conversion event's name; `control`, the variant every other
 * is compared with (docs/experiments.md gives the default); `from` inclusive and `to` exclusive,
 * an ISO 8601 date-time with a zone or a Date.
 */
export type ExperimentResultsInput = z.input<typeof experimentResultsQuerySchema>;

/** Each variant against the control, for the two per-user measures. */
export interface VersusControl {
  conversionRate: Comparison | null;
  revenuePerUser: Comparison | null;
}

export interface VariantResult {
  key: string;
  /** The flag's weight for this variant; null when the experiment is not a flag or the flag lacks it. */
  weight: number | null;
  users: number;
  conversions: number;
  /** conversions / users (a fraction); null without users. */
  conversionRate: number | null;
  revenue: number;
  /** revenue / users; null without users. */
  revenuePerUser: number | null;
  /** Null on the control itself. */
  vsControl: VersusControl | null;
}

export interface ExperimentResults {
  experimentId: string;
  metric: string;
  control: string | null;
  from: string | null;
  to: string | null;
  variants: VariantResult[];
  srm: SrmResult;
  excludedUsers: number;
}
