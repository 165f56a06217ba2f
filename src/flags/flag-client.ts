import { errorFields, type Logger, silentLogger } from "../logger.js";
import {
  type CompiledFlag,
  compileFlag,
  OUTCOME_BROKEN,
  OUTCOME_DISABLED,
  OUTCOME_NO_RULES,
  outcomeOf,
  type SnapshotFlag,
} from "./compile.js";
import type { ExposureRecorder } from "./exposures.js";
import type { EvaluationReason, EvaluationResult } from "./schema.js";

/**
 * The in-process flag client: an immutable snapshot of compiled flags and synchronous evaluation
 * against it. A source (the FlagStore sync in a flagpost instance, or the HTTP poller of the
 * remote client) feeds it snapshots through the FlagFeed it is created with; readers never wait.
 */

export interface FlagContext {
  userId?: string;
  attributes?: Record<string, unknown>;
  /** Returned when the flag is unknown, the client is not ready, or anything fails. Default false. */
  default?: boolean;
}

export interface VariantContext {
  userId?: string;
  attributes?: Record<string, unknown>;
  /** Returned when the flag is off for the user, has no variants, is unknown, or anything fails. Default undefined. */
  default?: string;
}

export type FlagEvaluationReason = EvaluationReason | "flag_not_found" | "error";

export interface FlagEvaluation {
  enabled: boolean;
  reason: FlagEvaluationReason;
  /** Index of the matching rule, present when reason is "rule_match". */
  ruleIndex?: number;
  /** The user's variant, when the flag is on for them and has variants. */
  variant?: string;
  /** Why, when reason is "error". */
  errorMessage?: string;
}

/** Where the client stands: no snapshot yet, serving a fresh one, serving the last good one while refreshes fail, or stopped for good. */
export type FlagClientStatus = "not_ready" | "ready" | "stale" | "failed";

export type FlagClientEvent =
  /** A snapshot is loaded and current (first load, or refreshes work again after "stale"). */
  | { type: "ready" }
  /** Flags were created, changed or deleted; `keys` lists them. */
  | { type: "changed"; keys: string[] }
  /** Refreshing failed; the last good snapshot is still served. */
  | { type: "stale"; message: string }
  /** The source gave up (for example, the API key was refused). The last snapshot, if any, is still served. */
  | { type: "failed"; message: string };

export type FlagClientListener = (event: FlagClientEvent) => void;

/** What a source uses to keep a client current. */
export interface FlagFeed {
  /** Replaces every flag. The first call makes the client ready. */
  replace(flags: Iterable<SnapshotFlag>): void;
  /** One flag written in this process (the FlagStore change feed). Ignored before the first replace. */
  upsert(flag: SnapshotFlag): void;
  remove(key: string): void;
  /** Refreshing failed; keep serving. */
  stale(error: unknown): void;
  /** A refresh confirmed the snapshot is current (e.g. HTTP 304). */
  fresh(): void;
  /** Unrecoverable: pending and future `ready()` calls reject when no snapshot was ever loaded. */
  fail(error: Error): void;
  /** Rejects the `ready()` calls waiting now (a start-up timeout); later calls wait again. */
  rejectWaiting(error: Error): void;
  /** What `client.close()` must stop. */
  onClose(stop: () => Promise<void>): void;
}

export interface FlagClientOptions {
  exposures?: ExposureRecorder;
  logger?: Logger;
}

const NOT_READY_MESSAGE = "flag client is not ready: the first flag snapshot has not loaded";
const EMPTY = new Map<string, CompiledFlag>();

function reasonOf(outcome: number): EvaluationReason {
  if (outcome >= 0) return "rule_match";
  if (outcome === OUTCOME_DISABLED) return "disabled";
  if (outcome === OUTCOME_NO_RULES) return "no_rules";
  return "no_rule_match";
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class FlagClient {
  /** The snapshot: replaced whole, never mutated once published. */
  #flags: ReadonlyMap<string, CompiledFlag> = EMPTY;
  #status: FlagClientStatus = "not_ready";
  /** Whether any snapshot was ever published. */
  #loaded = false;
  #failure: Error | undefined;
  #waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #listeners = new Set<FlagClientListener>();
  readonly #exposures: ExposureRecorder | undefined;
  readonly #logger: Logger;
  readonly #closers: (() => Promise<void>)[] = [];
  #closing: Promise<void> | undefined;
  #errors = 0;

  private constructor(options: FlagClientOptions) {
    this.#exposures = options.exposures;
    this.#logger = options.logger ?? silentLogger;
  }

  /** A client and the feed its source writes to. */
  static create(options: FlagClientOptions = {}): { client: FlagClient; feed: FlagFeed } {
    const client = new FlagClient(options);
    return { client, feed: client.#feed() };
  }

  /**
   * Whether the flag is on for this context. Synchronous, allocation-free on the common path, and
   * never throws: an unknown flag, a client that is not ready, or any failure gives `default`.
   */
  isEnabled(key: string, context?: FlagContext): boolean {
    try {
      const flag = this.#flags.get(key);
      if (flag !== undefined) {
        const userId = context?.userId;
        const attributes = context?.attributes;
        const id = typeof userId === "string" ? userId : undefined;
        const outcome = outcomeOf(
          flag,
          id,
          typeof attributes === "object" && attributes !== null ? attributes : undefined,
        );
        if (outcome !== OUTCOME_BROKEN) {
          const enabled = outcome >= 0 || outcome === OUTCOME_NO_RULES;
          if (this.#exposures !== undefined && id !== undefined) this.#expose(flag, id, enabled, outcome);
          return enabled;
        }
      }
      return context?.default === true;
    } catch (error) {
      return this.#fallback(error, context);
    }
  }

  /** Like isEnabled, with the reason; adds "flag_not_found" and "error" to evaluate()'s reasons. */
  evaluate(key: string, context?: FlagContext): FlagEvaluation {
    try {
      const flag = this.#flags.get(key);
      if (flag === undefined) {
        const enabled = context?.default === true;
        if (!this.#loaded) return { enabled, reason: "error", errorMessage: NOT_READY_MESSAGE };
        return { enabled, reason: "flag_not_found" };
      }
      const userId = context?.userId;
      const attributes = context?.attributes;
      const id = typeof userId === "string" ? userId : undefined;
      const outcome = outcomeOf(
        flag,
        id,
        typeof attributes === "object" && attributes !== null ? attributes : undefined,
      );
      if (outcome === OUTCOME_BROKEN) {
        return {
          enabled: context?.default === true,
          reason: "error",
          errorMessage: `flag "${key}" cannot be evaluated: ${flag.problem}`,
        };
      }
      const enabled = outcome >= 0 || outcome === OUTCOME_NO_RULES;
      const variant = this.#expose(flag, id, enabled, outcome);
      const result: FlagEvaluation =
        outcome >= 0 ? { enabled, reason: "rule_match", ruleIndex: outcome } : { enabled, reason: reasonOf(outcome) };
      if (variant !== undefined) result.variant = variant;
      return result;
    } catch (error) {
      return { enabled: this.#fallback(error, context), reason: "error", errorMessage: message(error) };
    }
  }

  /**
   * The user's variant of a flag with variants (docs/experiments.md): synchronous, allocation-free
   * for ASCII ids, and never throws. `default` (undefined when omitted) when the flag is unknown,
   * off for this context, has no variants, the context has no userId, or anything fails.
   */
  getVariant(key: string, context?: VariantContext): string | undefined {
    try {
      const flag = this.#flags.get(key);
      const userId = context?.userId;
      if (flag !== undefined && flag.variants !== null && typeof userId === "string") {
        const attributes = context?.attributes;
        const outcome = outcomeOf(
          flag,
          userId,
          typeof attributes === "object" && attributes !== null ? attributes : undefined,
        );
        if (outcome !== OUTCOME_BROKEN) {
          const variant = this.#expose(flag, userId, outcome >= 0 || outcome === OUTCOME_NO_RULES, outcome);
          if (variant !== undefined) return variant;
        }
      }
      return typeof context?.default === "string" ? context.default : undefined;
    } catch (error) {
      this.#fallback(error, undefined);
      try {
        return typeof context?.default === "string" ? context.default : undefined;
      } catch {
        return undefined;
      }
    }
  }

  /**
   * What the snapshot answers for this flag, in `evaluate()`'s shape, or undefined when the
   * snapshot cannot answer: not loaded yet, no such flag, or a flag it could not compile. Records
   * no exposure: it is for answering on a client's behalf (the HTTP evaluate route), which then
   * asks storage when this gives undefined. `context` must already be validated.
   */
  snapshotEvaluate(
    key: string,
    context: { userId?: string; attributes?: Record<string, unknown> },
  ): EvaluationResult | undefined {
    const flag = this.#flags.get(key);
    if (flag === undefined) return undefined;
    const outcome = outcomeOf(flag, context.userId, context.attributes);
    if (outcome === OUTCOME_BROKEN) return undefined;
    const enabled = outcome >= 0 || outcome === OUTCOME_NO_RULES;
    const result: EvaluationResult =
      outcome >= 0 ? { enabled, reason: "rule_match", ruleIndex: outcome } : { enabled, reason: reasonOf(outcome) };
    const variant = enabled && context.userId !== undefined ? flag.variants?.assign(context.userId) : undefined;
    if (variant !== undefined) result.variant = variant;
    return result;
  }

  /** Resolves once the first snapshot is loaded; rejects if the source failed for good before that. */
  ready(): Promise<void> {
    if (this.#loaded) return Promise.resolve();
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  get status(): FlagClientStatus {
    return this.#status;
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
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Evaluations that failed unexpectedly and answered the default. */
  get errorCount(): number {
    return this.#errors;
  }

  /** Stops the source (timers, connections) and flushes exposure events. Safe to call many times. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled(this.#closers.map((stop) => stop()));
      this.#exposures?.close();
      this.#listeners.clear();
    })();
    return this.#closing;
  }

  /**
   * The user's variant when the flag is on and has variants (undefined otherwise), recording the
   * exposure, with its variant, when exposures are on and there is a userId.
   */
  #expose(flag: CompiledFlag, userId: string | undefined, enabled: boolean, outcome: number): string | undefined {
    if (userId === undefined) return undefined;
    const variant = enabled && flag.variants !== null ? flag.variants.assign(userId) : undefined;
    if (this.#exposures === undefined) return variant;
    try {
      this.#exposures.record(flag.key, userId, enabled, reasonOf(outcome), outcome >= 0 ? outcome : undefined, variant);
    } catch (error) {
      this.#logger.warn("exposure could not be recorded", errorFields(error));
    }
    return variant;
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

  #emit(event: FlagClientEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error("flag client listener failed", errorFields(error));
      }
    }
  }

  #publish(next: ReadonlyMap<string, CompiledFlag>, changed: string[]): void {
    const wasLoaded = this.#loaded;
    this.#flags = next;
    this.#loaded = true;
    if (this.#status === "failed") {
      if (wasLoaded && changed.length > 0) this.#emit({ type: "changed", keys: changed });
      return;
    }
    const previous = this.#status;
    this.#status = "ready";
    if (!wasLoaded) {
      for (const waiter of this.#waiters.splice(0)) waiter.resolve();
      this.#emit({ type: "ready" });
      return;
    }
    if (previous === "stale") this.#emit({ type: "ready" });
    if (changed.length > 0) this.#emit({ type: "changed", keys: changed });
  }

  #feed(): FlagFeed {
    return {
      replace: (flags) => {
        const next = new Map<string, CompiledFlag>();
        for (const flag of flags) next.set(flag.key, compileFlag(flag));
        this.#publish(next, changedKeys(this.#flags, next));
      },
      upsert: (flag) => {
        if (!this.#loaded) return;
        const next = new Map(this.#flags);
        next.set(flag.key, compileFlag(flag));
        this.#publish(next, [flag.key]);
      },
      remove: (key) => {
        if (!this.#flags.has(key)) return;
        const next = new Map(this.#flags);
        next.delete(key);
        this.#publish(next, [key]);
      },
      stale: (error) => {
        if (this.#status !== "ready") return;
        this.#status = "stale";
        this.#emit({ type: "stale", message: message(error) });
      },
      fresh: () => {
        if (this.#status !== "stale") return;
        this.#status = "ready";
        this.#emit({ type: "ready" });
      },
      fail: (error) => {
        if (this.#status === "failed") return;
        this.#status = "failed";
        this.#failure = error;
        for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
        this.#emit({ type: "failed", message: error.message });
      },
      rejectWaiting: (error) => {
        for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
      },
      onClose: (stop) => {
        this.#closers.push(stop);
      },
    };
  }
}

/** Keys added, removed or changed between two snapshots. */
function changedKeys(before: ReadonlyMap<string, CompiledFlag>, after: ReadonlyMap<string, CompiledFlag>): string[] {
  const keys: string[] = [];
  for (const [key, flag] of after) {
    const old = before.get(key);
    if (old === undefined || !sameFlag(old.source, flag.source)) keys.push(key);
  }
  for (const key of before.keys()) if (!after.has(key)) keys.push(key);
  return keys.sort();
}

function sameFlag(a: SnapshotFlag, b: SnapshotFlag): boolean {
  if (a === b) return true;
  if (a.enabled !== b.enabled || a.id !== b.id || a.updatedAt !== b.updatedAt) return false;
  // Two writes within one millisecond share updatedAt: compare the rules and variants themselves.
  return (
    JSON.stringify(a.rules) === JSON.stringify(b.rules) && JSON.stringify(a.variants) === JSON.stringify(b.variants)
  );
}
