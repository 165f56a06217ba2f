import { errorFields, type Logger, silentLogger } from "../../ports/logger.js";
import { type CompiledFlag, OUTCOME_BROKEN, servedVariantIndex, type SnapshotFlag } from "../evaluation/compile.js";
import { countForInsights } from "../insights/count-evaluations.js";
import { AfterEvaluationList } from "./after-evaluation.js";
import {
  isOn,
  message,
  NOT_FOUND,
  NOT_READY_MESSAGE,
  outcomeOfDecision,
  reasonOf,
  SLOTS,
  typeMismatch,
  variantIndexOf,
} from "./decision.js";
import { type ExposureRecorder, exposureListener } from "./exposures.js";
import type {
  FlagClientListener,
  FlagClientOptions,
  FlagClientStatus,
  FlagContext,
  FlagEvaluation,
  FlagFeed,
  ValueContext,
  ValueEvaluation,
  VariantContext,
} from "./flag-client-types.js";
import { outcomeOf } from "../evaluation/prerequisite-plan.js";
import type { EvaluationResult } from "../schema.js";
import { type EvaluationCount, SnapshotState } from "./snapshot-state.js";
import { jsonTypeOf } from "../values.js";

export type * from "./flag-client-types.js";
export type { EvaluationCount } from "./snapshot-state.js";

/**
 * The in-process flag client: an immutable snapshot of compiled flags and synchronous evaluation
 * against it. A source (the FlagStore sync in a flagpost instance, or the HTTP poller of the
 * remote client) feeds it snapshots through the FlagFeed it is created with; readers never wait.
 *
 * Every evaluation (`isEnabled`, `evaluate`, `getVariant`, `getValue`, …) goes through one private
 * decision (`#decideOn`): outcome and variant packed in one number, then handed to the
 * after-evaluation listeners (after-evaluation.ts): the insights counter, the exposure recorder
 * when exposures are on, and the options' own. Each method maps the decision to its own answer.
 */

export class FlagClient {
  /** The snapshot: replaced whole by the state, never mutated once published. */
  #flags: ReadonlyMap<string, CompiledFlag>;
  readonly #state: SnapshotState;
  readonly #exposures: ExposureRecorder | undefined;
  readonly #afterEvaluation: AfterEvaluationList;
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;
  #errors = 0;

  private constructor(options: FlagClientOptions) {
    this.#exposures = options.exposures;
    this.#logger = options.logger ?? silentLogger;
    this.#afterEvaluation = new AfterEvaluationList(
      [
        countForInsights,
        ...(options.exposures ? [exposureListener(options.exposures)] : []),
        ...(options.afterEvaluation ?? []),
      ],
      this.#logger,
    );
    this.#state = new SnapshotState(this.#logger, options.collectCounts === true, (flags) => {
      this.#flags = flags;
    });
    this.#flags = this.#state.flags;
  }

  /** A client and the feed its source writes to. */
  static create(options: FlagClientOptions = {}): { client: FlagClient; feed: FlagFeed } {
    const client = new FlagClient(options);
    return { client, feed: client.#state.feed() };
  }

  /**
   * Whether the flag is on for this context. Synchronous, allocation-free on the common path, and
   * never throws: an unknown flag, a client that is not ready, or any failure gives `default`.
   */
  isEnabled(key: string, context?: FlagContext): boolean {
    try {
      const decision = this.#decide(key, context?.userId, context?.attributes, true);
      if (decision !== NOT_FOUND) {
        const outcome = outcomeOfDecision(decision);
        if (outcome !== OUTCOME_BROKEN) return isOn(outcome);
      }
      return context?.default === true;
    } catch (error) {
      return this.#fallback(error, context);
    }
  }

  /** Like isEnabled, with the reason; adds "flag_not_found" and "error" to evaluate()'s reasons. */
  evaluate(key: string, context?: FlagContext): FlagEvaluation {
    try {
      const decision = this.#decide(key, context?.userId, context?.attributes, true);
      const result = this.#result(key, decision);
      if (result !== undefined) return result;
      return { enabled: context?.default === true, ...this.#unanswered(key, decision) };
    } catch (error) {
      return { enabled: this.#fallback(error, context), reason: "error", errorMessage: message(error) };
    }
  }

  /**
   * The user's variant of a flag with variants (docs/experiments.md): synchronous, allocation-free
   * for ASCII ids, and never throws. `default` (undefined when omitted) when the flag is unknown,
   * off for this context, has no variants, serves none (no userId, no rule naming one), or anything fails.
   */
  getVariant(key: string, context?: VariantContext): string | undefined {
    try {
      const flag = this.#flags.get(key);
      if (flag?.variants != null) {
        const index = variantIndexOf(this.#decideOn(flag, context?.userId, context?.attributes, true));
        if (index >= 0) return flag.variants.keys[index];
      }
      return typeof context?.default === "string" ? context.default : undefined;
    } catch (error) {
      this.#fallback(error, undefined);
      return typeof context?.default === "string" ? context.default : undefined;
    }
  }

  /**
   * The value of the user's variant (docs/flags.md "Values"): synchronous and never throws.
   * `defaultValue` when the flag is unknown, off for this context, serves no variant or no values,
   * or when its values' JSON type is not `defaultValue`'s. Costs isEnabled's work and one array read.
   */
  getValue<T>(key: string, context: ValueContext | undefined, defaultValue: T): T {
    try {
      const flag = this.#flags.get(key);
      if (flag === undefined) return defaultValue;
      const decision = this.#decideOn(flag, context?.userId, context?.attributes, true);
      const variants = flag.variants;
      const index = variantIndexOf(decision);
      if (index < 0 || variants === null || variants.values === null) return defaultValue;
      return variants.valueType === jsonTypeOf(defaultValue) ? (variants.values[index] as T) : defaultValue;
    } catch (error) {
      this.#fallback(error, undefined);
      return defaultValue;
    }
  }

  /** getValue with the reason, variant and rule; reason "type_mismatch" when the value's JSON type is not the default's. */
  getValueDetail<T>(key: string, context: ValueContext | undefined, defaultValue: T): ValueEvaluation<T> {
    try {
      const decision = this.#decide(key, context?.userId, context?.attributes, true);
      const result = this.#result(key, decision);
      if (result === undefined) return { value: defaultValue, ...this.#unanswered(key, decision) };
      const { value, enabled, ...rest } = result;
      if (value === undefined || !enabled) return { value: defaultValue, ...rest };
      const [actual, expected] = [jsonTypeOf(value), jsonTypeOf(defaultValue) ?? "not JSON"];
      if (actual !== expected) return typeMismatch(key, actual, expected, defaultValue);
      return { value: value as T, ...rest };
    } catch (error) {
      this.#fallback(error, undefined);
      return { value: defaultValue, reason: "error", errorMessage: message(error) };
    }
  }

  /**
   * What the snapshot answers for this flag, in `evaluate()`'s shape, or undefined when the
   * snapshot cannot answer: not loaded yet, no such flag, or a flag it could not compile. Counted
   * in the insights, but records no exposure: it answers on a client's behalf (the HTTP evaluate
   * route, through `fp.flags.evaluateCurrent`). `context` must already be validated.
   */
  snapshotEvaluate(
    key: string,
    context: { userId?: string; attributes?: Record<string, unknown> },
  ): EvaluationResult | undefined {
    return this.#result(key, this.#decide(key, context.userId, context.attributes, false));
  }

  /** Counts an evaluation answered without the snapshot (from storage) in the insights. */
  countEvaluation(key: string, result: Pick<EvaluationResult, "enabled" | "variant">): void {
    this.#state.countElsewhere(key, result.enabled, result.variant);
  }

  /** The evaluations counted since the last call (per flag and result), and zero again. */
  takeCounts(): EvaluationCount[] {
    return this.#state.takeCounts();
  }

  /** Resolves once the first snapshot is loaded; rejects if the source failed for good before that. */
  ready(): Promise<void> {
    return this.#state.ready();
  }

  get status(): FlagClientStatus {
    return this.#state.status;
  }

  /** The keys in the current snapshot, sorted. */
  keys(): string[] {
    return [...this.#flags.keys()].sort();
  }

  /** The flag as the snapshot holds it (shared: do not mutate), or undefined. */
  getFlag(key: string): Readonly<SnapshotFlag> | undefined {
    return this.#flags.get(key)?.source;
  }

  /** The type of a flag's rule in the current snapshot ("users", "attribute", "percentage"). */
  ruleType(key: string, ruleIndex: number): string | undefined {
    return this.#flags.get(key)?.rules[ruleIndex]?.type;
  }

  /** Calls `listener` on status changes and snapshot changes. Returns the unsubscribe function. */
  subscribe(listener: FlagClientListener): () => void {
    return this.#state.subscribe(listener);
  }

  /** Evaluations that failed unexpectedly and answered the default. */
  get errorCount(): number {
    return this.#errors;
  }

  /** After-evaluation listener calls that threw (each caught, and logged first and then one in a thousand). */
  get listenerErrorCount(): number {
    return this.#afterEvaluation.failures;
  }

  /** Stops the source (timers, connections) and flushes exposure events. Safe to call many times. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#state.close();
      this.#exposures?.close();
    })();
    return this.#closing;
  }

  /**
   * The one decision: NOT_FOUND, or the packed outcome and variant of the flag for this context.
   * Runs the after-evaluation listeners (not for a broken flag); `forCaller` tells them whether
   * the caller asked for itself (exposures are recorded only then).
   */
  #decide(key: string, userId: unknown, attributes: unknown, forCaller: boolean): number {
    const flag = this.#flags.get(key);
    return flag === undefined ? NOT_FOUND : this.#decideOn(flag, userId, attributes, forCaller);
  }

  #decideOn(flag: CompiledFlag, userId: unknown, attributes: unknown, forCaller: boolean): number {
    const id = typeof userId === "string" ? userId : undefined;
    const attrs =
      typeof attributes === "object" && attributes !== null ? (attributes as Record<string, unknown>) : undefined;
    const outcome = outcomeOf(flag, id, attrs);
    if (outcome === OUTCOME_BROKEN) return OUTCOME_BROKEN * SLOTS;
    const variant = isOn(outcome) ? servedVariantIndex(flag, outcome, id) : -1;
    this.#afterEvaluation.run(flag, id, attrs, outcome, variant, forCaller);
    return outcome * SLOTS + variant + 1;
  }

  /** The decision in evaluate()'s shape; undefined when the flag is missing or broken. */
  #result(key: string, decision: number): EvaluationResult | undefined {
    if (decision === NOT_FOUND) return undefined;
    const outcome = outcomeOfDecision(decision);
    if (outcome === OUTCOME_BROKEN) return undefined;
    const enabled = isOn(outcome);
    const result: EvaluationResult =
      outcome >= 0 ? { enabled, reason: "rule_match", ruleIndex: outcome } : { enabled, reason: reasonOf(outcome) };
    const index = variantIndexOf(decision);
    if (index >= 0) {
      const variants = this.#flags.get(key)!.variants!;
      result.variant = variants.keys[index]!;
      if (variants.values !== null) result.value = variants.values[index];
    }
    return result;
  }

  /** Why a decision has no result: no such flag, no snapshot yet, or a flag that could not be compiled. */
  #unanswered(key: string, decision: number): { reason: "flag_not_found" | "error"; errorMessage?: string } {
    if (decision === NOT_FOUND)
      return this.#state.loaded ? { reason: "flag_not_found" } : { reason: "error", errorMessage: NOT_READY_MESSAGE };
    return { reason: "error", errorMessage: `flag "${key}" cannot be evaluated: ${this.#flags.get(key)?.problem}` };
  }

  #fallback(error: unknown, context: FlagContext | undefined): boolean {
    this.#errors += 1;
    if (this.#errors % 1000 === 1)
      this.#logger.warn("flag evaluation failed; answering the default", {
        count: this.#errors,
        ...errorFields(error),
      });
    try {
      return context?.default === true;
    } catch {
      return false;
    }
  }
}
