import { parseIsoInstant } from "../time.js";
import { bucketOf, percentageThreshold } from "./bucket.js";
import type { AttributeRule, EvaluationContext, EvaluationResult, Flag, Rule, Scalar } from "./schema.js";
import { compareSemver, parseSemver } from "./semver.js";
import { variantOf } from "./variants.js";

/**
 * The reference evaluator: pure, allocation-free apart from the result, and the definition every
 * other evaluator (the compiled in-process client, the HTTP route, other SDKs) must agree with.
 * See docs/flags.md for the decisions docs/api.md leaves open.
 */
export function evaluate(
  flag: Pick<Flag, "key" | "enabled" | "rules"> & { variants?: Flag["variants"] },
  context: EvaluationContext = {},
): EvaluationResult {
  if (!flag.enabled) return { enabled: false, reason: "disabled" };
  if (flag.rules.length === 0) return withVariant(flag, context, { enabled: true, reason: "no_rules" });
  for (let i = 0; i < flag.rules.length; i++) {
    if (ruleMatches(flag.key, flag.rules[i]!, context))
      return withVariant(flag, context, { enabled: true, reason: "rule_match", ruleIndex: i });
  }
  return { enabled: false, reason: "no_rule_match" };
}

/** An "on" answer gains the user's variant when the flag has variants and the context a userId. */
function withVariant(
  flag: { key: string; variants?: Flag["variants"] },
  context: EvaluationContext,
  result: EvaluationResult,
): EvaluationResult {
  const variant = context.userId === undefined ? undefined : variantOf(flag.key, flag.variants, context.userId);
  return variant === undefined ? result : { ...result, variant };
}

export function ruleMatches(flagKey: string, rule: Rule, context: EvaluationContext): boolean {
  switch (rule.type) {
    case "users":
      return context.userId !== undefined && rule.userIds.includes(context.userId);
    case "percentage":
      return context.userId !== undefined && bucketOf(flagKey, context.userId) < percentageThreshold(rule.percentage);
    case "attribute":
      return attributeMatches(rule, readAttribute(context, rule.attribute));
  }
}

/**
 * The attribute's value, or undefined when it is missing. Only strings, finite numbers and
 * booleans are values: null, arrays and objects count as missing, so they never match.
 */
export function readAttribute(context: EvaluationContext, name: string): Scalar | undefined {
  const attributes = context.attributes;
  let value: unknown;
  if (attributes !== undefined && Object.hasOwn(attributes, name)) value = attributes[name];
  else if (name === "userId") value = context.userId;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return undefined;
}

export function attributeMatches(rule: Pick<AttributeRule, "operator" | "value">, actual: Scalar | undefined): boolean {
  if (actual === undefined) return false; // a missing attribute never matches, whatever the operator
  const expected = rule.value;
  switch (rule.operator) {
    case "equals":
      return actual === expected;
    case "not_equals":
      return actual !== expected;
    case "in":
      return Array.isArray(expected) && expected.includes(actual);
    case "not_in":
      return Array.isArray(expected) && !expected.includes(actual);
    case "contains":
      return typeof actual === "string" && typeof expected === "string" && actual.includes(expected);
    case "starts_with":
      return typeof actual === "string" && typeof expected === "string" && actual.startsWith(expected);
    case "ends_with":
      return typeof actual === "string" && typeof expected === "string" && actual.endsWith(expected);
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const order = compareOrdered(actual, expected);
      if (order === undefined) return false;
      if (rule.operator === "gt") return order > 0;
      if (rule.operator === "gte") return order >= 0;
      if (rule.operator === "lt") return order < 0;
      return order <= 0;
    }
    case "semver_eq":
    case "semver_gt":
    case "semver_lt": {
      if (typeof actual !== "string" || typeof expected !== "string") return false;
      const a = parseSemver(actual);
      const e = parseSemver(expected);
      if (!a || !e) return false;
      const order = compareSemver(a, e);
      return rule.operator === "semver_eq" ? order === 0 : rule.operator === "semver_gt" ? order > 0 : order < 0;
    }
  }
}

/**
 * Sign of actual − expected: numbers against a number rule, ISO dates (as instants) against a
 * date rule; anything else is not comparable (undefined), so no match — "10" is not 10.
 */
function compareOrdered(actual: Scalar, expected: Scalar | Scalar[]): number | undefined {
  if (typeof expected === "number") {
    return typeof actual === "number" ? Math.sign(actual - expected) : undefined;
  }
  if (typeof expected === "string" && typeof actual === "string") {
    const e = parseIsoInstant(expected);
    const a = parseIsoInstant(actual);
    return a === undefined || e === undefined ? undefined : Math.sign(a - e);
  }
  return undefined;
}
