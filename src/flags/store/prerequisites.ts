import { FlagpostError } from "../../errors.js";
import type { Prerequisite } from "../schema.js";

/**
 * The rules of the prerequisite graph (docs/flags.md "Prerequisites"), run by the flag writes
 * (flag-writes.ts) inside each write's transaction, on the graph as stored, so two writes racing
 * cannot together make a cycle, and a flag cannot be deleted while another still needs it.
 *
 * - Every prerequisite names a stored flag, and not the flag itself.
 * - The graph stays acyclic.
 * - A flag's depth — 0 without prerequisites, else 1 + the deepest of its prerequisites — is at
 *   most MAX_PREREQUISITE_DEPTH for every flag, so a chain holds at most 10 prerequisites below
 *   the flag evaluated.
 */

export const MAX_PREREQUISITE_DEPTH = 10;

/** Flag key → the keys of its prerequisites, for every stored flag that has some. */
export type PrerequisiteGraph = ReadonlyMap<string, readonly string[]>;

function invalid(path: string, message: string): FlagpostError {
  return new FlagpostError("validation_error", `"${path}" ${message}`, { details: [{ path, message }] });
}

/**
 * Refuses (422) a write that gives `key` these prerequisites. `graph` is every other stored
 * flag's prerequisites (an entry for `key` itself is replaced); `exists` tells whether a key
 * names a stored flag.
 */
export function checkPrerequisites(
  key: string,
  prerequisites: readonly Prerequisite[],
  graph: PrerequisiteGraph,
  exists: (flagKey: string) => boolean,
): void {
  if (prerequisites.length === 0) return;
  prerequisites.forEach((prerequisite, index) => {
    const path = `prerequisites.${index}.flagKey`;
    if (prerequisite.flagKey === key) throw invalid(path, "names the flag itself");
    if (!exists(prerequisite.flagKey)) throw invalid(path, `names no flag ("${prerequisite.flagKey}")`);
  });
  const edges = new Map(graph);
  edges.set(
    key,
    prerequisites.map((p) => p.flagKey),
  );
  const depth = new Map<string, number>();
  const onPath: string[] = [];

  // Depth-first, memoised: each flag is measured once; a flag met again on the current path is a cycle.
  const measure = (flag: string): number => {
    const known = depth.get(flag);
    if (known !== undefined) return known;
    const start = onPath.indexOf(flag);
    if (start >= 0) {
      const cycle = [...onPath.slice(start), flag].join(" → ");
      throw invalid("prerequisites", `would make a cycle: ${cycle}`);
    }
    onPath.push(flag);
    let deepest = 0;
    for (const next of edges.get(flag) ?? []) deepest = Math.max(deepest, measure(next) + 1);
    onPath.pop();
    depth.set(flag, deepest);
    return deepest;
  };
  // From `key` first (a cycle then reads from the flag written), then from every flag: that covers
  // the ones that depend on `key`, whose chains grow with it.
  for (const flag of [key, ...edges.keys()]) {
    if (measure(flag) > MAX_PREREQUISITE_DEPTH) {
      const through = flag === key ? "" : ` (through "${flag}", which depends on "${key}")`;
      throw invalid(
        "prerequisites",
        `would make a chain of ${depth.get(flag)} prerequisites${through}; at most ${MAX_PREREQUISITE_DEPTH}`,
      );
    }
  }
}

/** The flags that list `key` as a prerequisite, sorted. */
export function dependentsOf(key: string, graph: PrerequisiteGraph): string[] {
  const dependents: string[] = [];
  for (const [flag, prerequisites] of graph) if (flag !== key && prerequisites.includes(key)) dependents.push(flag);
  return dependents.sort();
}

/** Refuses (409) deleting a flag other flags still list as a prerequisite, naming them. */
export function checkDeletable(key: string, graph: PrerequisiteGraph): void {
  const dependents = dependentsOf(key, graph);
  if (dependents.length === 0) return;
  const names = dependents.map((d) => `"${d}"`).join(", ");
  throw new FlagpostError(
    "conflict",
    `Flag "${key}" is a prerequisite of ${names}: remove it from their prerequisites first`,
    { details: dependents.map((d) => ({ path: `${d}.prerequisites`, message: `lists "${key}"` })) },
  );
}
