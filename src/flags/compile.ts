import { parseIsoInstant } from "../time.js";
import { BUCKETS, percentageThreshold } from "./bucket.js";
import { type HashPrefix, hashPrefix, murmur3WithPrefix } from "./murmur3-prefix.js";
import type { Flag, Rule, Scalar } from "./schema.js";
import { compareSemver, parseSemver, type Semver } from "./semver.js";
import { type CompiledVariants, compileVariants } from "./variants.js";

/**
 * Flags compiled once into plain data the hot path can walk without allocating: user lists and
 * `in` lists as Sets, dates and versions parsed, percentage thresholds and hash prefixes
 * precomputed. `outcomeOf` must give the same answer as evaluate.ts on every input evaluate.ts
 * accepts; the shared fixtures and a property test hold the two together.
 */

/** What a flag's rules decided: a rule index (≥ 0) or one of these. */
export const OUTCOME_DISABLED = -1;
export const OUTCOME_NO_RULES = -2;
export const OUTCOME_NO_MATCH = -3;
/** The flag could not be compiled (a rule of a kind this version does not know). */
export const OUTCOME_BROKEN = -4;

const KIND_USERS = 0;
const KIND_ATTRIBUTE = 1;
const KIND_PERCENTAGE = 2;

// Attribute operators, with the value's type already decided at compile time.
const OP_NEVER = 0;
const OP_EQUALS = 1;
const OP_NOT_EQUALS = 2;
const OP_PRESENT = 3; // not_equals against a list: any present value differs from it
const OP_IN = 4;
const OP_NOT_IN = 5;
const OP_CONTAINS = 6;
const OP_STARTS_WITH = 7;
const OP_ENDS_WITH = 8;
const OP_NUM_GT = 9;
const OP_NUM_GTE = 10;
const OP_NUM_LT = 11;
const OP_NUM_LTE = 12;
const OP_DATE_GT = 13;
const OP_DATE_GTE = 14;
const OP_DATE_LT = 15;
const OP_DATE_LTE = 16;
const OP_SEMVER_EQ = 17;
const OP_SEMVER_GT = 18;
const OP_SEMVER_LT = 19;

/**
 * One rule. Every rule has the same fields (unused ones hold neutral values), so the evaluation
 * loop sees a single object shape and stays monomorphic.
 */
export class CompiledRule {
  constructor(
    readonly type: Rule["type"],
    readonly kind: number,
    /** users: the ids; in/not_in: the values. */
    readonly set: ReadonlySet<unknown> | null,
    readonly attribute: string,
    readonly op: number,
    /** equals/not_equals/string operators: the value; numeric comparisons: the number. */
    readonly value: unknown,
    /** Dates as epoch ms; percentage: the bucket threshold. */
    readonly number: number,
    readonly semver: Semver | null,
    readonly prefix: HashPrefix | null,
  ) {}
}

export class CompiledFlag {
  constructor(
    readonly key: string,
    readonly enabled: boolean,
    readonly rules: readonly CompiledRule[],
    /** The flag as stored; shared, never mutated. */
    readonly source: Readonly<SnapshotFlag>,
    /** Why the flag could not be compiled; evaluations then answer the default with reason "error". */
    readonly problem: string | undefined,
    /** The flag's variants, or null when it has none. */
    readonly variants: CompiledVariants | null = null,
  ) {}
}

/** What a snapshot needs of a flag; stored flags carry more (id, description, times). */
export type SnapshotFlag = Pick<Flag, "key" | "enabled" | "rules"> & Partial<Omit<Flag, "key" | "enabled" | "rules">>;

const NONE: readonly CompiledRule[] = [];

export function compileFlag(flag: SnapshotFlag): CompiledFlag {
  try {
    if (typeof flag.key !== "string") throw new Error("the flag has no key");
    if (!Array.isArray(flag.rules)) throw new Error("the flag's rules are not a list");
    const rules = flag.rules.map((rule) => compileRule(flag.key, rule));
    return new CompiledFlag(
      flag.key,
      flag.enabled === true,
      rules,
      flag,
      undefined,
      compileVariants(flag.key, flag.variants),
    );
  } catch (error) {
    return new CompiledFlag(
      String(flag.key),
      false,
      NONE,
      flag,
      error instanceof Error ? error.message : String(error),
    );
  }
}

function rule(
  type: Rule["type"],
  kind: number,
  fields: Partial<Pick<CompiledRule, "set" | "attribute" | "op" | "value" | "number" | "semver" | "prefix">>,
): CompiledRule {
  return new CompiledRule(
    type,
    kind,
    fields.set ?? null,
    fields.attribute ?? "",
    fields.op ?? OP_NEVER,
    fields.value,
    fields.number ?? 0,
    fields.semver ?? null,
    fields.prefix ?? null,
  );
}

function compileRule(flagKey: string, source: Rule): CompiledRule {
  switch (source?.type) {
    case "users":
      if (!Array.isArray(source.userIds)) throw new Error('a "users" rule has no userIds list');
      return rule("users", KIND_USERS, { set: new Set(source.userIds) });
    case "percentage":
      if (typeof source.percentage !== "number") throw new Error('a "percentage" rule has no percentage');
      return rule("percentage", KIND_PERCENTAGE, {
        number: percentageThreshold(source.percentage),
        prefix: hashPrefix(`${flagKey}:`),
      });
    case "attribute":
      if (typeof source.attribute !== "string") throw new Error('an "attribute" rule has no attribute name');
      return rule("attribute", KIND_ATTRIBUTE, {
        attribute: source.attribute,
        ...compileOperator(source.operator, source.value),
      });
    default:
      throw new Error(`unknown rule type ${JSON.stringify((source as { type?: unknown })?.type)}`);
  }
}

const ORDER_OPS = {
  gt: [OP_NUM_GT, OP_DATE_GT],
  gte: [OP_NUM_GTE, OP_DATE_GTE],
  lt: [OP_NUM_LT, OP_DATE_LT],
  lte: [OP_NUM_LTE, OP_DATE_LTE],
} as const;
const STRING_OPS = { contains: OP_CONTAINS, starts_with: OP_STARTS_WITH, ends_with: OP_ENDS_WITH } as const;
const SEMVER_OPS = { semver_eq: OP_SEMVER_EQ, semver_gt: OP_SEMVER_GT, semver_lt: OP_SEMVER_LT } as const;

/** The operator and value as evaluate.ts reads them, with every never-matching combination folded into OP_NEVER. */
function compileOperator(operator: string, value: Scalar | Scalar[]): Partial<CompiledRule> {
  const list = Array.isArray(value);
  switch (operator) {
    case "equals":
      return list ? { op: OP_NEVER } : { op: OP_EQUALS, value };
    case "not_equals":
      return list ? { op: OP_PRESENT } : { op: OP_NOT_EQUALS, value };
    case "in":
    case "not_in":
      return list ? { op: operator === "in" ? OP_IN : OP_NOT_IN, set: new Set(value) } : { op: OP_NEVER };
    case "contains":
    case "starts_with":
    case "ends_with":
      return typeof value === "string" ? { op: STRING_OPS[operator], value } : { op: OP_NEVER };
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const [numberOp, dateOp] = ORDER_OPS[operator];
      if (typeof value === "number") return { op: numberOp, value };
      const instant = typeof value === "string" ? parseIsoInstant(value) : undefined;
      return instant === undefined ? { op: OP_NEVER } : { op: dateOp, number: instant };
    }
    case "semver_eq":
    case "semver_gt":
    case "semver_lt": {
      const semver = typeof value === "string" ? parseSemver(value) : undefined;
      return semver ? { op: SEMVER_OPS[operator], semver } : { op: OP_NEVER };
    }
    default:
      throw new Error(`unknown operator ${JSON.stringify(operator)}`);
  }
}

/**
 * The rule index that matched (≥ 0) or an OUTCOME_* constant. `userId` is undefined when the
 * context has none (or one that is not a string); `attributes` is undefined or an object.
 */
export function outcomeOf(
  flag: CompiledFlag,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): number {
  if (flag.problem !== undefined) return OUTCOME_BROKEN;
  if (!flag.enabled) return OUTCOME_DISABLED;
  const rules = flag.rules;
  const n = rules.length;
  if (n === 0) return OUTCOME_NO_RULES;
  for (let i = 0; i < n; i++) {
    const r = rules[i]!;
    if (r.kind === KIND_USERS) {
      if (userId !== undefined && r.set!.has(userId)) return i;
    } else if (r.kind === KIND_ATTRIBUTE) {
      if (attributeMatches(r, userId, attributes)) return i;
    } else if (
      userId !== undefined &&
      r.number > 0 &&
      (r.number >= BUCKETS || murmur3WithPrefix(r.prefix!, userId) % BUCKETS < r.number)
    ) {
      return i;
    }
  }
  return OUTCOME_NO_MATCH;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** evaluate.ts's readAttribute: own properties only; strings, finite numbers and booleans are values. */
function readAttribute(
  name: string,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): unknown {
  if (attributes !== undefined && hasOwn.call(attributes, name)) {
    const value = attributes[name];
    if (typeof value === "string" || typeof value === "boolean") return value;
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  }
  return name === "userId" ? userId : undefined;
}

function attributeMatches(
  r: CompiledRule,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): boolean {
  const actual = readAttribute(r.attribute, userId, attributes);
  if (actual === undefined) return false;
  switch (r.op) {
    case OP_EQUALS:
      return actual === r.value;
    case OP_NOT_EQUALS:
      return actual !== r.value;
    case OP_PRESENT:
      return true;
    case OP_IN:
      return r.set!.has(actual);
    case OP_NOT_IN:
      return !r.set!.has(actual);
    case OP_CONTAINS:
      return typeof actual === "string" && actual.includes(r.value as string);
    case OP_STARTS_WITH:
      return typeof actual === "string" && actual.startsWith(r.value as string);
    case OP_ENDS_WITH:
      return typeof actual === "string" && actual.endsWith(r.value as string);
    case OP_NUM_GT:
      return typeof actual === "number" && actual > (r.value as number);
    case OP_NUM_GTE:
      return typeof actual === "number" && actual >= (r.value as number);
    case OP_NUM_LT:
      return typeof actual === "number" && actual < (r.value as number);
    case OP_NUM_LTE:
      return typeof actual === "number" && actual <= (r.value as number);
    case OP_DATE_GT:
    case OP_DATE_GTE:
    case OP_DATE_LT:
    case OP_DATE_LTE: {
      const instant = typeof actual === "string" ? parseIsoInstant(actual) : undefined;
      if (instant === undefined) return false;
      if (r.op === OP_DATE_GT) return instant > r.number;
      if (r.op === OP_DATE_GTE) return instant >= r.number;
      if (r.op === OP_DATE_LT) return instant < r.number;
      return instant <= r.number;
    }
    case OP_SEMVER_EQ:
    case OP_SEMVER_GT:
    case OP_SEMVER_LT: {
      const version = typeof actual === "string" ? parseSemver(actual) : undefined;
      if (version === undefined) return false;
      const order = compareSemver(version, r.semver!);
      return r.op === OP_SEMVER_EQ ? order === 0 : r.op === OP_SEMVER_GT ? order > 0 : order < 0;
    }
    default:
      return false;
  }
}
