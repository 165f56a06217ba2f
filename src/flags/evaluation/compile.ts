import { BUCKETS, percentageThreshold } from "./bucket.js";
import { type HashPrefix, hashPrefix, murmur3WithPrefix } from "./murmur3-prefix.js";
import { type Matcher, type OperatorScalar, operatorNamed } from "./operators.js";
import type { Flag, Prerequisite, Rule } from "../schema.js";
import { type CompiledVariants, compileVariants } from "./variants.js";

/**
 * Flags compiled once into plain data the hot path can walk without allocating: user lists as
 * Sets, attribute values through the operator table's `compile` (operators.ts), percentage
 * thresholds and hash prefixes precomputed. Prerequisites are resolved against the whole snapshot
 * afterwards (prerequisite-plan.ts). Together they must give the same answer as evaluate.ts on
 * every input evaluate.ts accepts; the shared fixtures and a property test hold them together.
 */

/** What a flag decided: a rule index (≥ 0) or one of these. */
export const OUTCOME_DISABLED = -1;
export const OUTCOME_NO_RULES = -2;
export const OUTCOME_NO_MATCH = -3;
/** The flag could not be compiled (a rule of a kind this version does not know). */
export const OUTCOME_BROKEN = -4;
export const OUTCOME_PREREQUISITE_FAILED = -5;

/** More variants than this make a flag broken: the flag client packs a variant index in a small field. */
export const MAX_COMPILED_VARIANTS = 62;

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
    /** users: the ids. */
    readonly set: ReadonlySet<unknown> | null,
    readonly attribute: string,
    /** attribute: the operator table's matcher and its argument. */
    readonly match: Matcher["match"],
    readonly arg: unknown,
    /** percentage: the bucket threshold. */
    readonly number: number,
    readonly prefix: HashPrefix | null,
    /** The index of the variant the rule serves by name, or -1 for the user's weighted one. */
    readonly served: number,
  ) {}
}

/**
 * A flag's prerequisites resolved against one snapshot, for evaluation without recursion:
 * `steps` is every flag they reach, in topological order (a flag after all it depends on), and
 * each step, then the flag itself, has a run of checks (`checkStep` = the index of the step whose
 * answer it reads, or -1 when that flag is missing or leads back into a cycle: unmet;
 * `checkWant` = 1 for enabled). Step i's checks are `checkFrom[i]` to `checkFrom[i + 1] - 1`;
 * the flag's own are from `checkFrom[steps.length]`.
 */
export class PrerequisitePlan {
  /** Set while an evaluation uses `results`, so a re-entrant one (an attribute getter calling back) gets its own. */
  busy = false;
  constructor(
    readonly steps: readonly CompiledFlag[],
    readonly checkFrom: Int32Array,
    readonly checkStep: Int32Array,
    readonly checkWant: Uint8Array,
    /** Scratch: each step's answer during one evaluation (0 off, 1 on, 2 could not be evaluated). */
    readonly results: Uint8Array,
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
    readonly variants: CompiledVariants | null,
    /** The flag's prerequisites as stored (checked for shape). */
    readonly prerequisites: readonly Prerequisite[],
    /** Null without prerequisites; until linked into a snapshot, a plan in which each is unmet. */
    readonly plan: PrerequisitePlan | null,
    /**
     * Evaluations counted for insights since they were last collected: [off, on without a
     * variant, variant 0, variant 1, …]. Plain increments, read and reset by the flag client.
     */
    readonly counts: Float64Array,
  ) {}

  /** The same flag with its prerequisites resolved in a new snapshot; the counts carry over. */
  withPlan(plan: PrerequisitePlan | null): CompiledFlag {
    return new CompiledFlag(
      this.key,
      this.enabled,
      this.rules,
      this.source,
      this.problem,
      this.variants,
      this.prerequisites,
      plan,
      this.counts,
    );
  }
}

/** What a snapshot needs of a flag; stored flags carry more (id, description, times). */
export type SnapshotFlag = Pick<Flag, "key" | "enabled" | "rules"> & Partial<Omit<Flag, "key" | "enabled" | "rules">>;

const NONE: readonly CompiledRule[] = [];
const NO_PREREQUISITES: readonly Prerequisite[] = [];

export function compileFlag(flag: SnapshotFlag): CompiledFlag {
  try {
    if (typeof flag.key !== "string") throw new Error("the flag has no key");
    if (!Array.isArray(flag.rules)) throw new Error("the flag's rules are not a list");
    const variants = compileVariants(flag.key, flag.variants);
    const rules = flag.rules.map((rule) => compileRule(flag.key, rule, servedIndex(rule, variants)));
    if (variants !== null && variants.keys.length > MAX_COMPILED_VARIANTS)
      throw new Error(`the flag has more than ${MAX_COMPILED_VARIANTS} variants`);
    const prerequisites = compilePrerequisites(flag.prerequisites);
    return new CompiledFlag(
      flag.key,
      flag.enabled === true,
      rules,
      flag,
      undefined,
      variants,
      prerequisites,
      prerequisites.length === 0 ? null : unlinkedPlan(prerequisites.length),
      new Float64Array(2 + (variants?.keys.length ?? 0)),
    );
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return new CompiledFlag(
      String(flag.key),
      false,
      NONE,
      flag,
      problem,
      null,
      NO_PREREQUISITES,
      null,
      new Float64Array(2),
    );
  }
}

function compilePrerequisites(prerequisites: unknown): readonly Prerequisite[] {
  if (prerequisites === undefined || prerequisites === null) return NO_PREREQUISITES;
  if (!Array.isArray(prerequisites)) throw new Error("the flag's prerequisites are not a list");
  return prerequisites.map((p: Partial<Prerequisite> | null) => {
    if (typeof p?.flagKey !== "string" || typeof p.enabled !== "boolean")
      throw new Error("a prerequisite needs a string flagKey and a boolean enabled");
    return { flagKey: p.flagKey, enabled: p.enabled };
  });
}

/** A plan with no steps whose checks all read a missing flag: what a flag compiled alone answers. */
function unlinkedPlan(checks: number): PrerequisitePlan {
  return new PrerequisitePlan(
    [],
    Int32Array.of(0, checks),
    new Int32Array(checks).fill(-1),
    new Uint8Array(checks),
    new Uint8Array(0),
  );
}

/** The index of the variant a rule serves by name, -1 when it names none; throws when the flag has no such variant. */
function servedIndex(source: Rule, variants: CompiledVariants | null): number {
  const name = (source as { variant?: unknown } | null)?.variant;
  if (name === undefined) return -1;
  const index = variants === null ? -1 : variants.keys.indexOf(name as string);
  if (index < 0) throw new Error(`a rule serves variant ${JSON.stringify(name)}, which the flag does not have`);
  return index;
}

const NO_MATCH: Matcher["match"] = () => false;

function rule(
  type: Rule["type"],
  kind: number,
  served: number,
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
    served,
  );
}

function compileRule(flagKey: string, source: Rule, served: number): CompiledRule {
  switch (source?.type) {
    case "users":
      if (!Array.isArray(source.userIds)) throw new Error('a "users" rule has no userIds list');
      return rule("users", KIND_USERS, served, { set: new Set(source.userIds) });
    case "percentage":
      if (typeof source.percentage !== "number") throw new Error('a "percentage" rule has no percentage');
      return rule("percentage", KIND_PERCENTAGE, served, {
        number: percentageThreshold(source.percentage),
        prefix: hashPrefix(`${flagKey}:`),
      });
    case "attribute": {
      if (typeof source.attribute !== "string") throw new Error('an "attribute" rule has no attribute name');
      const operator = operatorNamed(source.operator);
      if (operator === undefined) throw new Error(`unknown operator ${JSON.stringify(source.operator)}`);
      const { match, arg } = operator.compile(source.value);
      return rule("attribute", KIND_ATTRIBUTE, served, { attribute: source.attribute, match, arg });
    }
    default:
      throw new Error(`unknown rule type ${JSON.stringify((source as { type?: unknown })?.type)}`);
  }
}

/**
 * What the rules decide, once `enabled` and the prerequisites are settled: the index of the rule
 * that matched, OUTCOME_NO_RULES or OUTCOME_NO_MATCH. `userId` is undefined when the context has
 * none (or one that is not a string); `attributes` is undefined or an object.
 */
export function ruleOutcome(
  flag: CompiledFlag,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): number {
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

/**
 * The index of the variant an "on" outcome serves: the matching rule's named one, else the user's
 * weighted one when the flag has variants and the context a userId; -1 for none.
 */
export function servedVariantIndex(flag: CompiledFlag, outcome: number, userId: string | undefined): number {
  if (outcome >= 0) {
    const served = flag.rules[outcome]!.served;
    if (served >= 0) return served;
  }
  return userId !== undefined && flag.variants !== null ? flag.variants.indexFor(userId) : -1;
}
