import type { Logger } from "../../ports/logger.js";
import type { SnapshotFlag } from "../evaluation/compile.js";
import type { AfterEvaluation } from "./after-evaluation.js";
import type { ExposureRecorder } from "./exposures.js";
import type { EvaluationReason } from "../schema.js";

/** The flag client's public shapes: what callers pass and get back, and what its source writes to. */

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

/** The context of `getValue`: the default is its own argument, since its type is the answer's. */
export interface ValueContext {
  userId?: string;
  attributes?: Record<string, unknown>;
}

/** `getValueDetail`'s answer; reason "type_mismatch" when the flag's values are not of the default's JSON type. */
export interface ValueEvaluation<T> {
  /** The variant's value, or the default. */
  value: T;
  reason: FlagEvaluationReason | "type_mismatch";
  /** Index of the matching rule, present when reason is "rule_match". */
  ruleIndex?: number;
  /** The variant served, present when the flag served one (its value may still be the default: a flag without values). */
  variant?: string;
  /** Why, when reason is "error" or "type_mismatch". */
  errorMessage?: string;
}

export interface FlagEvaluation {
  enabled: boolean;
  reason: FlagEvaluationReason;
  /** Index of the matching rule, present when reason is "rule_match". */
  ruleIndex?: number;
  /** The user's variant, when the flag is on for them and has variants. */
  variant?: string;
  /** The variant's value (JSON), when the flag's variants carry values (docs/flags.md "Values"). */
  value?: unknown;
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
  /** Records exposures: an entry of the after-evaluation list, after the insights counter. */
  exposures?: ExposureRecorder;
  /** More after-evaluation listeners, run after those two in this order (after-evaluation.ts). */
  afterEvaluation?: readonly AfterEvaluation[];
  logger?: Logger;
  /**
   * Something collects the evaluation counts (`takeCounts()`, the insights recorder): keep the
   * counts of flags a new snapshot replaces until then. Without it they are dropped with the flag.
   */
  collectCounts?: boolean;
}
