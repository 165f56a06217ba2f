import {
  type CompiledFlag,
  OUTCOME_BROKEN,
  OUTCOME_DISABLED,
  OUTCOME_NO_RULES,
  OUTCOME_PREREQUISITE_FAILED,
  PrerequisitePlan,
  ruleOutcome,
  servedVariantIndex,
} from "./compile.js";

/**
 * Prerequisites on the hot path (docs/flags.md "Prerequisites"). When a snapshot is published,
 * each flag with prerequisites gets a plan: the flags they reach, in topological order, so one
 * loop evaluates them deepest first with no recursion, each answer kept in a scratch array for
 * the checks that read it. A prerequisite missing from the snapshot, or one leading back into a
 * cycle (which storage refuses, but a snapshot is data from elsewhere), is unmet, as evaluate.ts
 * has it; a prerequisite that could not be compiled is unmet too.
 */

/** The snapshot with every flag that has prerequisites given a plan against it (new objects; the rest shared). */
export function linkPrerequisites(flags: ReadonlyMap<string, CompiledFlag>): Map<string, CompiledFlag> {
  const linked = new Map(flags);
  for (const [key, flag] of flags) if (flag.plan !== null) linked.set(key, flag.withPlan(planFor(flag, flags)));
  return linked;
}

function planFor(flag: CompiledFlag, flags: ReadonlyMap<string, CompiledFlag>): PrerequisitePlan {
  const steps: CompiledFlag[] = [];
  const stepChecks: (readonly [number, boolean])[][] = [];
  const indexOf = new Map<string, number>();
  const path = [flag.key];
  const checksOf = (of: CompiledFlag) => of.prerequisites.map((p) => [visit(p.flagKey), p.enabled] as const);
  // Post-order depth-first walk: a step is placed after every step it reads.
  function visit(key: string): number {
    const known = indexOf.get(key);
    if (known !== undefined) return known;
    const step = path.includes(key) ? undefined : flags.get(key);
    if (step === undefined) return -1;
    path.push(key);
    const checks = checksOf(step);
    path.pop();
    steps.push(step);
    stepChecks.push(checks);
    indexOf.set(key, steps.length - 1);
    return steps.length - 1;
  }
  stepChecks.push(checksOf(flag)); // after the walk, so it comes last: the flag's own checks

  const total = stepChecks.reduce((n, checks) => n + checks.length, 0);
  const checkFrom = new Int32Array(steps.length + 2);
  const checkStep = new Int32Array(total);
  const checkWant = new Uint8Array(total);
  let at = 0;
  stepChecks.forEach((checks, i) => {
    checkFrom[i] = at;
    for (const [step, want] of checks) {
      checkStep[at] = step;
      checkWant[at] = want ? 1 : 0;
      at += 1;
    }
  });
  checkFrom[stepChecks.length] = at;
  return new PrerequisitePlan(steps, checkFrom, checkStep, checkWant, new Uint8Array(steps.length));
}

/**
 * The flag's outcome for this context: a rule index (≥ 0) or an OUTCOME_* constant. Prerequisite
 * flags evaluated on the way are counted in their own insights; the flag itself is counted by
 * the caller, which knows its variant.
 */
export function outcomeOf(
  flag: CompiledFlag,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): number {
  if (flag.problem !== undefined) return OUTCOME_BROKEN;
  if (!flag.enabled) return OUTCOME_DISABLED;
  const plan = flag.plan;
  if (plan !== null && !prerequisitesMet(plan, userId, attributes)) return OUTCOME_PREREQUISITE_FAILED;
  return ruleOutcome(flag, userId, attributes);
}

/** Counts one evaluation of `flag` for insights: off, on, or on with the variant at `variantIndex`. */
export function countEvaluation(flag: CompiledFlag, enabled: boolean, variantIndex: number): void {
  flag.counts[enabled ? (variantIndex >= 0 ? 2 + variantIndex : 1) : 0]! += 1;
}

function checksHold(plan: PrerequisitePlan, results: Uint8Array, from: number, to: number): boolean {
  for (let c = from; c < to; c++) {
    const step = plan.checkStep[c]!;
    if (step < 0 || results[step] !== plan.checkWant[c]) return false;
  }
  return true;
}

function prerequisitesMet(
  plan: PrerequisitePlan,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
): boolean {
  const steps = plan.steps;
  const n = steps.length;
  const reentrant = plan.busy;
  const results = reentrant ? new Uint8Array(n) : plan.results;
  plan.busy = true;
  try {
    for (let i = 0; i < n; i++) {
      const step = steps[i]!;
      if (step.problem !== undefined) {
        results[i] = 2;
        continue;
      }
      let on = false;
      let variant = -1;
      if (step.enabled && checksHold(plan, results, plan.checkFrom[i]!, plan.checkFrom[i + 1]!)) {
        const outcome = ruleOutcome(step, userId, attributes);
        on = outcome >= 0 || outcome === OUTCOME_NO_RULES;
        if (on) variant = servedVariantIndex(step, outcome, userId);
      }
      results[i] = on ? 1 : 0;
      countEvaluation(step, on, variant);
    }
    return checksHold(plan, results, plan.checkFrom[n]!, plan.checkFrom[n + 1]!);
  } finally {
    if (!reentrant) plan.busy = false;
  }
}
