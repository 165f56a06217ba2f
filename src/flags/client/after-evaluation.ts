import type { CompiledFlag } from "../evaluation/compile.js";
import { errorFields, type Logger } from "../../ports/logger.js";

/**
 * What runs after each evaluation the snapshot answers: the insights counter and, when turned on,
 * the exposure recorder are its first entries (flag-client.ts builds the list once). Listeners are
 * synchronous and called with plain arguments, not an event object, so an evaluation allocates
 * nothing for them; a listener that throws is caught, counted and logged, never seen by the caller.
 */

/**
 * Called with the evaluated flag, the context's user id and attributes (undefined when absent or
 * not of the right type), the outcome (a matching rule's index ≥ 0 or an OUTCOME_* constant of
 * compile.ts; decision.ts's isOn and reasonOf read it), the served variant's index (-1 for none)
 * and whether the caller asked for itself (`isEnabled`, `getValue`, …) rather than
 * on a client's behalf (`snapshotEvaluate`, the HTTP evaluate route). Not called for an unknown flag
 * or one that could not be compiled.
 */
export type AfterEvaluation = (
  flag: CompiledFlag,
  userId: string | undefined,
  attributes: Record<string, unknown> | undefined,
  outcome: number,
  variantIndex: number,
  forCaller: boolean,
) => void;

/** Runs the listeners in order, each guarded: one that throws never stops the next nor the evaluation. */
export class AfterEvaluationList {
  readonly #listeners: readonly AfterEvaluation[];
  readonly #logger: Logger;
  #failures = 0;

  constructor(listeners: readonly AfterEvaluation[], logger: Logger) {
    this.#listeners = listeners;
    this.#logger = logger;
  }

  /** Calls every listener in order with the evaluation; a listener itself, so typed as one. */
  readonly run: AfterEvaluation = (flag, userId, attributes, outcome, variantIndex, forCaller) => {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(flag, userId, attributes, outcome, variantIndex, forCaller);
      } catch (error) {
        this.#failed(flag.key, error);
      }
    }
  };

  /** Listener calls that threw. */
  get failures(): number {
    return this.#failures;
  }

  #failed(flagKey: string, error: unknown): void {
    this.#failures += 1;
    // The first failure and then one in a thousand: a broken listener runs on every evaluation.
    if (this.#failures % 1000 === 1)
      this.#logger.warn("an after-evaluation listener failed", {
        flagKey,
        failures: this.#failures,
        ...errorFields(error),
      });
  }
}
