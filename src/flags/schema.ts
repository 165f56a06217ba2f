import { z } from "zod";
import type { EpochMs } from "../ports/storage/instants.js";
import { limitField } from "../pagination.js";
import { RESERVED_KEY } from "../input-policy.js";
import { ATTRIBUTE_OPERATORS, OPERATORS } from "./evaluation/operators.js";
import { variantValueIssues, variantValueSchema } from "./values.js";

/**
 * The wire shapes of flags, rules and evaluation, and the TypeScript types derived from them.
 * Limits that docs/api.md leaves open are decided here and written down in docs/flags.md.
 */

export const FLAG_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_RULES = 100;
export const MAX_USER_IDS = 10_000;
export const MAX_LIST_VALUES = 10_000;
export const MAX_ID_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 1_000;
export const MAX_VALUE_LENGTH = 1_000;

export const flagKeySchema = z.string().regex(FLAG_KEY_PATTERN, {
  error: "must be 1 to 128 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit",
});

const userIdSchema = z.string().min(1).max(MAX_ID_LENGTH);

export type { AttributeOperator } from "./evaluation/operators.js";

const scalarSchema = z.union([z.string().max(MAX_VALUE_LENGTH), z.number(), z.boolean()], {
  error: "must be a string, a number or a boolean",
});
export type Scalar = z.infer<typeof scalarSchema>;

/** A rule may serve a named variant (docs/flags.md "Values"): users it matches get that variant instead of their weighted one. */
const servedVariantField = {
  variant: z.string().regex(FLAG_KEY_PATTERN, { error: "must be the key of one of the flag's variants" }).optional(),
};

export const usersRuleSchema = z.strictObject({
  type: z.literal("users"),
  userIds: z.array(userIdSchema).min(1).max(MAX_USER_IDS),
  ...servedVariantField,
});

export const attributeRuleSchema = z
  .strictObject({
    type: z.literal("attribute"),
    // Attributes can never hold a "__proto__" key (input-policy.ts), so such a rule could never match.
    attribute: z
      .string()
      .min(1)
      .max(MAX_ID_LENGTH)
      .refine((name) => name !== RESERVED_KEY, {
        error: `must not be "${RESERVED_KEY}" (no attribute can have that name)`,
      }),
    operator: z.enum(ATTRIBUTE_OPERATORS),
    value: z.union([scalarSchema, z.array(scalarSchema).min(1).max(MAX_LIST_VALUES)], {
      error: "must be a string, a number, a boolean or an array of those",
    }),
    ...servedVariantField,
  })
  .superRefine((rule, ctx) => {
    const problem = OPERATORS[rule.operator].validate(rule.value);
    if (problem) ctx.addIssue({ code: "custom", path: ["value"], message: problem });
  });

export const percentageRuleSchema = z.strictObject({
  type: z.literal("percentage"),
  percentage: z
    .number()
    .min(0)
    .max(100)
    .refine((p) => Math.abs(p * 100 - Math.round(p * 100)) < 1e-6, { error: "must have at most two decimals" }),
  ...servedVariantField,
});

export const ruleSchema = z.discriminatedUnion("type", [usersRuleSchema, attributeRuleSchema, percentageRuleSchema], {
  error: (issue) => (issue.code === "invalid_union" ? 'must be one of "users", "attribute", "percentage"' : undefined),
});

export type UsersRule = z.infer<typeof usersRuleSchema>;
export type AttributeRule = z.infer<typeof attributeRuleSchema>;
export type PercentageRule = z.infer<typeof percentageRuleSchema>;
export type Rule = z.infer<typeof ruleSchema>;

const rulesSchema = z.array(ruleSchema).max(MAX_RULES);

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 20;

/** Hundredths of a percent: weights with up to two decimals, compared as integers so 33.33 + 33.33 + 33.34 is exactly 100. */
function hundredths(weight: number): number {
  return Math.round(weight * 100);
}

export const variantSchema = z.strictObject({
  key: flagKeySchema,
  weight: z
    .number()
    .min(0)
    .max(100)
    .refine((w) => Math.abs(w * 100 - hundredths(w)) < 1e-6, { error: "must have at most two decimals" }),
  /** What the variant serves (values.ts): any JSON but null, ≤ 32 KiB, one JSON type per flag. */
  value: variantValueSchema.optional(),
});
export type Variant = z.infer<typeof variantSchema>;

/** Adds an issue at each item whose `field` repeats an earlier item's: the list's keys must be distinct. */
function flagRepeatedKeys<Field extends string>(
  items: readonly Record<Field, string>[],
  field: Field,
  message: (key: string) => string,
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    const key = item[field];
    if (seen.has(key)) ctx.addIssue({ code: "custom", path: [index, field], message: message(key) });
    seen.add(key);
  });
}

/**
 * docs/experiments.md: none (an empty list), or 2 to 20 variants with distinct keys whose weights
 * sum to exactly 100.
 */
export const variantsSchema = z
  .array(variantSchema)
  .max(MAX_VARIANTS)
  .superRefine((variants, ctx) => {
    if (variants.length === 0) return;
    if (variants.length < MIN_VARIANTS) {
      ctx.addIssue({ code: "custom", message: `must hold ${MIN_VARIANTS} to ${MAX_VARIANTS} variants, or none` });
      return;
    }
    flagRepeatedKeys(variants, "key", (key) => `repeats the variant key "${key}"`, ctx);
    const total = variants.reduce((sum, variant) => sum + hundredths(variant.weight), 0);
    if (total !== 10_000) ctx.addIssue({ code: "custom", message: `weights must sum to 100, not ${total / 100}` });
    for (const issue of variantValueIssues(variants)) ctx.addIssue({ code: "custom", ...issue });
  });
const descriptionSchema = z.string().max(MAX_DESCRIPTION_LENGTH);

/** At most this many prerequisites per flag; docs/flags.md "Prerequisites". */
export const MAX_PREREQUISITES = 20;

export const prerequisiteSchema = z.strictObject({
  flagKey: flagKeySchema,
  /** The answer the prerequisite flag must give the same context for this flag to be evaluated further. */
  enabled: z.boolean(),
});
export type Prerequisite = z.infer<typeof prerequisiteSchema>;

/**
 * Distinct flag keys. Whether each names a stored flag, and whether the graph stays acyclic and
 * shallow, depends on the other flags: the flag write checks it inside its transaction (prerequisites.ts).
 */
export const prerequisitesSchema = z
  .array(prerequisiteSchema)
  .max(MAX_PREREQUISITES)
  .superRefine((prerequisites, ctx) => {
    flagRepeatedKeys(prerequisites, "flagKey", (key) => `repeats "${key}"`, ctx);
  });

export const createFlagSchema = z.strictObject({
  key: flagKeySchema,
  description: descriptionSchema.default(""),
  enabled: z.boolean().default(false),
  rules: rulesSchema.default([]),
  variants: variantsSchema.default([]),
  prerequisites: prerequisitesSchema.default([]),
});
export type CreateFlagInput = z.input<typeof createFlagSchema>;

/** PATCH: fields present replace, omitted fields stay. `key` and `id` may be echoed back unchanged. */
export const updateFlagSchema = z.strictObject({
  key: z.string().optional(),
  id: z.string().optional(),
  description: descriptionSchema.optional(),
  enabled: z.boolean().optional(),
  rules: rulesSchema.optional(),
  variants: variantsSchema.optional(),
  prerequisites: prerequisitesSchema.optional(),
});
export type UpdateFlagInput = z.input<typeof updateFlagSchema>;

/** A flag as the HTTP API, the snapshot, the stream and webhook payloads carry it: times in ISO 8601. */
export const flagJsonSchema = z.object({
  id: z.string(),
  key: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  rules: z.array(ruleSchema),
  /** Empty when the flag is a plain on/off flag. */
  variants: z.array(variantSchema),
  /** Flags that must answer as listed before this one's rules are tried; empty for most flags. */
  prerequisites: z.array(prerequisiteSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FlagJson = z.infer<typeof flagJsonSchema>;
/** A flag as storage and the in-process API hold it: times in epoch milliseconds (ISO only at the wire, FlagJson). */
export type Flag = Omit<FlagJson, "createdAt" | "updatedAt"> & { createdAt: EpochMs; updatedAt: EpochMs };
export type FlagSummary = Pick<Flag, "id" | "key" | "description" | "enabled" | "createdAt"> & {
  /** Not evaluated, or answering one result only, for `staleAfterDays` (docs/flags.md "Insights"). */
  stale: boolean;
};

export const evaluationContextSchema = z.strictObject({
  userId: userIdSchema.optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});
export type EvaluationContext = z.infer<typeof evaluationContextSchema>;

export const EVALUATION_REASONS = [
  "disabled",
  "prerequisite_failed",
  "no_rules",
  "rule_match",
  "no_rule_match",
] as const;
export type EvaluationReason = (typeof EVALUATION_REASONS)[number];

export interface EvaluationResult {
  enabled: boolean;
  reason: EvaluationReason;
  /** Index of the matching rule, present when reason is "rule_match". */
  ruleIndex?: number;
  /**
   * The user's variant: present when the flag is on for this context and has variants, and the
   * context has a userId or the matching rule serves a named variant.
   */
  variant?: string;
  /** The variant's value (JSON): present when `variant` is and the flag's variants carry values. */
  value?: unknown;
}

export const listFlagsQuerySchema = z.strictObject({
  limit: limitField(1000, 100),
  cursor: z.string().max(200).optional(),
});
