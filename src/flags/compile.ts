import { BUCKETS, percentageThreshold } from "./bucket.js";
import { type HashPrefix, hashPrefix, murmur3WithPrefix } from "./murmur3-prefix.js";
import { type Matcher, type OperatorScalar, operatorNamed } from "./operators.js";
import type { Flag, Rule } from "./schema.js";
import { type CompiledVariants, compileVariants } from "./variants.js";

/**
 * Flags compiled once into plain data the hot path can walk without allocating: user lists as
 * Sets, attribute values through the operator table's `compile` (operators.ts), percentage
 * thresholds and hash prefixes precomputed. `outcomeOf` must give the same answer as evaluate.ts on every input evaluate.ts
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
    /** attribute: the operator table's matcher and its argument. */
    readonly match: Matcher["match"],
    readonly arg: unknown,
    /** percentage: the bucket threshold. */
    readonly number: number,
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

const NO_MATCH: Matcher["match"] = () => false;

function rule(
  type: Rule["type"],
  kind: number,
  fields: Partial<Pick<CompiledRule, "set" | "attribute" | "match" | "arg" | "number" | "prefix">>,
): CompiledRule {
  return new CompiledRule(
    type,
    kind,
    fields.set ?? null,
    fields.attribute ?? "",
    fields.match ?? NO_MATCH,
    fields.arg,
    fields.number ?? 0,
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
    case "attribute": {
      if (typeof source.attribute !== "string") throw new Error('an "attribute" rule has no attribute name');
      const operator = operatorNamed(source.operator);
      if (operator === undefined) throw new Error(`unknown operator ${JSON.stringify(source.operator)}`);
      const { match, arg } = operator.compile(source.value);
      return rule("attribute", KIND_ATTRIBUTE, { attribute: source.attribute, match, arg });
    }
    default:
      throw new Error(`unknown rule type ${JSON.stringify((source as { type?: unknown })?.type)}`);
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
): OperatorScalar | undefined {
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
  return actual !== undefined && r.match(actual, r.arg as never);
}
