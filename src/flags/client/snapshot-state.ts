import { errorFields, type Logger } from "../../ports/logger.js";
import { type CompiledFlag, compileFlag, type SnapshotFlag } from "../evaluation/compile.js";
import type { FlagClientEvent, FlagClientListener, FlagClientStatus, FlagFeed } from "./flag-client-types.js";
import { linkPrerequisites } from "../evaluation/prerequisite-plan.js";

/**
 * A flag client's snapshot and everything around it except evaluation: the feed its source
 * writes to, the status and its events, `ready()` waiters, closing, and collecting the
 * evaluation counts the compiled flags hold (docs/flags.md "Insights"). Every publish hands the
 * client a new, fully linked map; a published map is never changed.
 */

/** Evaluations of one flag with one result since the counts were last taken. */
export interface EvaluationCount {
  flagKey: string;
  enabled: boolean;
  /** The variant of an "on" answer, when the flag has variants and the context a userId. */
  variant?: string;
  count: number;
}

const EMPTY = new Map<string, CompiledFlag>();

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SnapshotState {
  flags: ReadonlyMap<string, CompiledFlag> = EMPTY;
  status: FlagClientStatus = "not_ready";
  /** Whether any snapshot was ever published. */
  loaded = false;
  #failure: Error | undefined;
  #waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #listeners = new Set<FlagClientListener>();
  readonly #closers: (() => Promise<void>)[] = [];
  readonly #logger: Logger;
  readonly #onPublish: (flags: ReadonlyMap<string, CompiledFlag>) => void;
  /** Flags replaced or removed since the counts were last taken, kept only while someone collects. */
  #retired: CompiledFlag[] = [];
  #collecting: boolean;
  /** Evaluations answered without the snapshot (the HTTP route reading storage): flag → result → count. */
  #elsewhere = new Map<string, Map<string, EvaluationCount>>();

  constructor(logger: Logger, collect: boolean, onPublish: (flags: ReadonlyMap<string, CompiledFlag>) => void) {
    this.#logger = logger;
    this.#collecting = collect;
    this.#onPublish = onPublish;
  }

  ready(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  subscribe(listener: FlagClientListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the source and forgets the listeners. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#closers.map((stop) => stop()));
    this.#listeners.clear();
  }

  countElsewhere(flagKey: string, enabled: boolean, variant: string | undefined): void {
    let results = this.#elsewhere.get(flagKey);
    if (results === undefined) this.#elsewhere.set(flagKey, (results = new Map()));
    const label = variant ?? (enabled ? "_on" : "_off"); // "_" cannot start a variant key
    const entry = results.get(label) ?? { flagKey, enabled, ...(variant === undefined ? {} : { variant }), count: 0 };
    entry.count += 1;
    results.set(label, entry);
  }

  /** The evaluations counted since the last call, and zero again; from then on replaced flags' counts are kept. */
  takeCounts(): EvaluationCount[] {
    this.#collecting = true;
    const taken: EvaluationCount[] = [];
    const take = (flag: CompiledFlag) => {
      const counts = flag.counts;
      for (let slot = 0; slot < counts.length; slot++) {
        const count = counts[slot]!;
        if (count === 0) continue;
        counts[slot] = 0;
        const variant = slot >= 2 ? flag.variants?.keys[slot - 2] : undefined;
        taken.push({ flagKey: flag.key, enabled: slot > 0, ...(variant === undefined ? {} : { variant }), count });
      }
    };
    for (const flag of this.#retired) take(flag);
    this.#retired = [];
    for (const flag of this.flags.values()) take(flag);
    for (const results of this.#elsewhere.values()) taken.push(...results.values());
    this.#elsewhere = new Map();
    return taken;
  }

  feed(): FlagFeed {
    return {
      replace: (flags) => {
        const next = new Map<string, CompiledFlag>();
        for (const flag of flags) next.set(flag.key, compileFlag(flag));
        this.#publish(next);
      },
      upsert: (flag) => {
        if (!this.loaded) return;
        const next = new Map(this.flags);
        next.set(flag.key, compileFlag(flag));
        this.#publish(next);
      },
      remove: (key) => {
        if (!this.flags.has(key)) return;
        const next = new Map(this.flags);
        next.delete(key);
        this.#publish(next);
      },
      stale: (error) => {
        if (this.status !== "ready") return;
        this.status = "stale";
        this.#emit({ type: "stale", message: message(error) });
      },
      fresh: () => {
        if (this.status !== "stale") return;
        this.status = "ready";
        this.#emit({ type: "ready" });
      },
      fail: (error) => {
        if (this.status === "failed") return;
        this.status = "failed";
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

  #emit(event: FlagClientEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error("flag client listener failed", errorFields(error));
      }
    }
  }

  /** Links prerequisites across the new map, keeps the counts of what it replaces, and publishes it. */
  #publish(compiled: ReadonlyMap<string, CompiledFlag>): void {
    const next = linkPrerequisites(compiled);
    const previous = this.flags;
    if (this.#collecting) {
      const live = new Set<Float64Array>();
      for (const flag of next.values()) live.add(flag.counts);
      for (const flag of previous.values()) if (!live.has(flag.counts)) this.#retired.push(flag);
    }
    const changed = changedKeys(previous, next);
    const wasLoaded = this.loaded;
    this.flags = next;
    this.loaded = true;
    this.#onPublish(next);
    if (this.status === "failed") {
      if (wasLoaded && changed.length > 0) this.#emit({ type: "changed", keys: changed });
      return;
    }
    const before = this.status;
    this.status = "ready";
    if (!wasLoaded) {
      for (const waiter of this.#waiters.splice(0)) waiter.resolve();
      this.#emit({ type: "ready" });
      return;
    }
    if (before === "stale") this.#emit({ type: "ready" });
    if (changed.length > 0) this.#emit({ type: "changed", keys: changed });
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
  // Two writes within one millisecond share updatedAt: compare the rules, variants and prerequisites themselves.
  return (
    JSON.stringify(a.rules) === JSON.stringify(b.rules) &&
    JSON.stringify(a.variants) === JSON.stringify(b.variants) &&
    JSON.stringify(a.prerequisites) === JSON.stringify(b.prerequisites)
  );
}
