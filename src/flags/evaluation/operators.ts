import { parseIsoInstant } from "../../time.js";
import { compareSemver, parseSemver, type Semver } from "./semver.js";

/**
 * The attribute operators of docs/api.md "Rules", in one table: for each name, the kinds of value
 * it takes, how a value is checked on write (`validate`), and how it is turned once into what
 * matching needs (`compile`, which returns the `match` function and its argument). The schema
 * (schema.ts), the reference evaluate() (evaluate.ts), the compiled snapshot behind isEnabled
 * (compile.ts) and the dashboard's editor (adapters/http/dashboard/operator-table.ts) all read
 * this table, so an operator is added or changed here and nowhere else.
 */

/** A rule's value item: what JSON gives for a string, a number or a boolean. */
export type OperatorScalar = string | number | boolean;
export type OperatorValue = OperatorScalar | OperatorScalar[];

/**
 * How the dashboard's editor may enter the value: text, a number, a boolean, an ISO 8601 date, a
 * semantic version, or raw JSON (any mix of strings, numbers and booleans).
 */
export type ValueKind = "string" | "number" | "boolean" | "date" | "version" | "json";

/**
 * What `compile` makes of a rule's value: the function that decides whether a present attribute
 * value matches, and the argument it needs (a Set, an instant, a parsed version…).
 */
export interface Matcher {
  readonly match: (actual: OperatorScalar, arg: never) => boolean;
  readonly arg: unknown;
}

export interface OperatorDefinition {
  /** The kinds of value the editor offers for this operator, the first being the default. */
  readonly kinds: readonly ValueKind[];
  /** Whether the value is a list (`in`, `not_in`). */
  readonly list: boolean;
  /** Why `value` does not fit this operator (a sentence after the field name), or undefined. */
  validate(value: OperatorValue): string | undefined;
  /**
   * The matcher for `value`. Total: a value `validate` would refuse (stored data written by an
   * older or other writer) gives a matcher too, usually one that never matches, so every
   * evaluator answers alike on every input.
   */
  compile(value: OperatorValue): Matcher;
}

function matcher<A>(match: (actual: OperatorScalar, arg: A) => boolean, arg: A): Matcher {
  return { match: match as Matcher["match"], arg };
}

/** No attribute value matches (a value of the wrong kind for the operator). */
const NEVER: Matcher = matcher(() => false, undefined);
/** Every present attribute value matches (`not_equals` against a list: nothing equals a list). */
const PRESENT: Matcher = matcher(() => true, undefined);

const SCALAR_KINDS = ["string", "number", "boolean", "json"] as const;

function scalarValue(name: string): (value: OperatorValue) => string | undefined {
  return (value) =>
    Array.isArray(value) ? `must not be an array for operator "${name}" (use "in" or "not_in")` : undefined;
}

function listValue(name: string): (value: OperatorValue) => string | undefined {
  return (value) => (Array.isArray(value) ? undefined : `must be an array for operator "${name}"`);
}

function stringOperator(name: string, match: (actual: string, expected: string) => boolean): OperatorDefinition {
  const notArray = scalarValue(name);
  const test = (actual: OperatorScalar, expected: string) => typeof actual === "string" && match(actual, expected);
  return {
    kinds: ["string"],
    list: false,
    validate: (value) =>
      notArray(value) ?? (typeof value === "string" ? undefined : `must be a string for operator "${name}"`),
    compile: (value) => (typeof value === "string" ? matcher(test, value) : NEVER),
  };
}

/**
 * gt, gte, lt, lte: a number rule compares numbers, a date rule (an ISO 8601 string) compares
 * instants; anything else is not comparable, so no match — "10" is not 10.
 */
function orderOperator(name: string, holds: (sign: number) => boolean): OperatorDefinition {
  const notArray = scalarValue(name);
  const numbers = (actual: OperatorScalar, expected: number) =>
    typeof actual === "number" && holds(Math.sign(actual - expected));
  const instants = (actual: OperatorScalar, expected: number) => {
    const at = typeof actual === "string" ? parseIsoInstant(actual) : undefined;
    return at !== undefined && holds(Math.sign(at - expected));
  };
  return {
    kinds: ["number", "date"],
    list: false,
    validate(value) {
      const problem = notArray(value);
      if (problem) return problem;
      if (typeof value === "number") return undefined;
      if (typeof value === "string" && parseIsoInstant(value) !== undefined) return undefined;
      return `must be a number or an ISO 8601 date for operator "${name}"`;
    },
    compile(value) {
      if (typeof value === "number") return matcher(numbers, value);
      const instant = typeof value === "string" ? parseIsoInstant(value) : undefined;
      return instant === undefined ? NEVER : matcher(instants, instant);
    },
  };
}

function semverOperator(name: string, holds: (order: number) => boolean): OperatorDefinition {
  const notArray = scalarValue(name);
  const test = (actual: OperatorScalar, expected: Semver) => {
    const parsed = typeof actual === "string" ? parseSemver(actual) : undefined;
    return parsed !== undefined && holds(compareSemver(parsed, expected));
  };
  return {
    kinds: ["version"],
    list: false,
    validate: (value) =>
      notArray(value) ??
      (typeof value === "string" && parseSemver(value)
        ? undefined
        : `must be a semantic version such as "1.2.3" for operator "${name}"`),
    compile(value) {
      const expected = typeof value === "string" ? parseSemver(value) : undefined;
      return expected === undefined ? NEVER : matcher(test, expected);
    },
  };
}

const equal = (actual: OperatorScalar, expected: OperatorScalar) => actual === expected;
const differ = (actual: OperatorScalar, expected: OperatorScalar) => actual !== expected;
const member = (actual: OperatorScalar, set: ReadonlySet<unknown>) => set.has(actual);
const notMember = (actual: OperatorScalar, set: ReadonlySet<unknown>) => !set.has(actual);

export const OPERATORS = {
  equals: {
    kinds: SCALAR_KINDS,
    list: false,
    validate: scalarValue("equals"),
    // Equality is strict: the string "1" is not the number 1, and nothing equals a list.
    compile: (value) => (Array.isArray(value) ? NEVER : matcher(equal, value)),
  },
  not_equals: {
    kinds: SCALAR_KINDS,
    list: false,
    validate: scalarValue("not_equals"),
    compile: (value) => (Array.isArray(value) ? PRESENT : matcher(differ, value)),
  },
  in: {
    kinds: SCALAR_KINDS,
    list: true,
    validate: listValue("in"),
    compile: (value) => (Array.isArray(value) ? matcher(member, new Set(value)) : NEVER),
  },
  not_in: {
    kinds: SCALAR_KINDS,
    list: true,
    validate: listValue("not_in"),
    compile: (value) => (Array.isArray(value) ? matcher(notMember, new Set(value)) : NEVER),
  },
  contains: stringOperator("contains", (actual, expected) => actual.includes(expected)),
  starts_with: stringOperator("starts_with", (actual, expected) => actual.startsWith(expected)),
  ends_with: stringOperator("ends_with", (actual, expected) => actual.endsWith(expected)),
  gt: orderOperator("gt", (sign) => sign > 0),
  gte: orderOperator("gte", (sign) => sign >= 0),
  lt: orderOperator("lt", (sign) => sign < 0),
  lte: orderOperator("lte", (sign) => sign <= 0),
  semver_eq: semverOperator("semver_eq", (order) => order === 0),
  semver_gt: semverOperator("semver_gt", (order) => order > 0),
  semver_lt: semverOperator("semver_lt", (order) => order < 0),
} as const satisfies Record<string, OperatorDefinition>;

export type AttributeOperator = keyof typeof OPERATORS;

/** The operator names, in the table's order (the order docs/api.md and the editor list them). */
export const ATTRIBUTE_OPERATORS = Object.keys(OPERATORS) as [AttributeOperator, ...AttributeOperator[]];

/** The operator's definition, or undefined for a name the table does not hold (own names only). */
export function operatorNamed(name: string): OperatorDefinition | undefined {
  return Object.hasOwn(OPERATORS, name) ? OPERATORS[name as AttributeOperator] : undefined;
}
