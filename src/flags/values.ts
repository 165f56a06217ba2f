import { z } from "zod";
import { FlagpostError } from "../errors.js";

/**
 * Flag values (remote config, issue 27): the JSON a variant serves, and the type rules that keep a
 * flag's values readable by one typed call. Decided here and written down in docs/flags.md:
 * - The types are "string", "number", "boolean", "object" and "array": an object and an array are
 *   different types, so `getValue(key, ctx, {})` never hands back a list.
 * - null is not a value (a variant with nothing to serve leaves `value` out).
 * - Every variant of a flag with values has one, all of the same type.
 */

export const MAX_VALUE_BYTES = 32 * 1024;
/** Deeper nesting than this is refused: no configuration needs it, and it bounds the checks below. */
export const MAX_VALUE_DEPTH = 32;

export const JSON_TYPES = ["string", "number", "boolean", "object", "array"] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** The value's type by the rules above; undefined for null, undefined and anything that is not JSON. */
export function jsonTypeOf(value: unknown): JsonType | undefined {
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return Number.isFinite(value) ? "number" : undefined;
    case "boolean":
      return "boolean";
    case "object":
      if (value === null) return undefined;
      return Array.isArray(value) ? "array" : "object";
    default:
      return undefined;
  }
}

/** Why `value` is not plain JSON (a function, NaN, a Date, a nested undefined…), or undefined when it is. */
function notJson(value: unknown, depth: number): string | undefined {
  if (depth > MAX_VALUE_DEPTH) return `must not nest deeper than ${MAX_VALUE_DEPTH} levels`;
  if (value === null) return depth === 0 ? "must not be null (leave value out instead)" : undefined;
  const type = jsonTypeOf(value);
  if (type === undefined) return "must be JSON: a string, a finite number, a boolean, an object or an array";
  if (type === "array") {
    for (const item of value as unknown[]) {
      const problem = notJson(item, depth + 1);
      if (problem) return problem;
    }
  } else if (type === "object") {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return "must be a plain JSON object";
    for (const item of Object.values(value as Record<string, unknown>)) {
      const problem = notJson(item, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

const encoder = new TextEncoder();

/** A variant's value: any JSON but null, at most 32 KiB once serialised. */
export const variantValueSchema = z.unknown().superRefine((value, ctx) => {
  const problem = notJson(value, 0);
  if (problem) {
    ctx.addIssue({ code: "custom", message: problem });
    return;
  }
  const bytes = encoder.encode(JSON.stringify(value)).length;
  if (bytes > MAX_VALUE_BYTES)
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_VALUE_BYTES} bytes as JSON, not ${bytes}` });
});

interface Issue {
  path: (string | number)[];
  message: string;
}

/** One value per variant, all of one type, or none at all. Paths are relative to the variant list. */
export function variantValueIssues(variants: readonly { key: string; value?: unknown }[]): Issue[] {
  const valued = variants.filter((variant) => variant.value !== undefined);
  if (valued.length === 0) return [];
  const issues: Issue[] = [];
  const type = jsonTypeOf(valued[0]!.value);
  variants.forEach((variant, index) => {
    if (variant.value === undefined) {
      issues.push({
        path: [index, "value"],
        message: "is missing: when one variant has a value, every variant needs one",
      });
      return;
    }
    const own = jsonTypeOf(variant.value);
    if (own !== type)
      issues.push({
        path: [index, "value"],
        message: `is ${article(own)}, but the flag's values are ${type} values: every variant's value must have the same JSON type`,
      });
  });
  return issues;
}

function article(type: JsonType | undefined): string {
  return type === "object" || type === "array" ? `an ${type}` : `a ${type ?? "non-JSON value"}`;
}

/** Rules that serve a named variant must name one of the flag's variants. Paths are relative to the flag. */
function ruleVariantIssues(rules: readonly { variant?: string }[], variants: readonly { key: string }[]): Issue[] {
  const keys = new Set(variants.map((variant) => variant.key));
  const issues: Issue[] = [];
  rules.forEach((rule, index) => {
    if (rule.variant !== undefined && !keys.has(rule.variant))
      issues.push({
        path: ["rules", index, "variant"],
        message:
          keys.size === 0
            ? `serves variant "${rule.variant}", but the flag has no variants`
            : `serves variant "${rule.variant}", which is not one of the flag's variants (${[...keys].join(", ")})`,
      });
  });
  return issues;
}

/** Refuses a flag whose rules serve variants it does not have (checked on the whole flag, after a PATCH is merged). */
export function assertRuleVariants(
  rules: readonly { variant?: string }[],
  variants: readonly { key: string }[] | undefined,
): void {
  const issues = ruleVariantIssues(rules, variants ?? []);
  if (issues.length === 0) return;
  const details = issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
  throw new FlagpostError("validation_error", `"${details[0]!.path}" ${details[0]!.message}`, { details });
}
