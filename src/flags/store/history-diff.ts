import type { FlagFieldChange } from "../../ports/storage/flag-history.js";

/**
 * The per-path difference between two versions of a flag, as the flag history records it.
 * Pure; computed once per write by flag-writes.ts, for the history entry and the event alike.
 *
 * - Top-level fields are compared except the ones that identify or stamp a version
 *   (`id`, `key`, `createdAt`, `updatedAt`); a created flag lists every field with `before: null`,
 *   a deleted one every field with `after: null`.
 * - Objects are compared field by field, and lists of objects (rules, prerequisites, variants)
 *   item by item, so a changed percentage reads `rules.0.percentage: 25 → 50`.
 * - Lists of plain values (user ids, `in` values) change as a whole: one entry with both lists,
 *   rather than thousands of index-shifted entries when one id is inserted at the front.
 */

const NOT_COMPARED = new Set(["id", "key", "createdAt", "updatedAt"]);

type Json = unknown;

export function flagChanges(
  before: Record<string, Json> | undefined,
  after: Record<string, Json> | undefined,
): FlagFieldChange[] {
  const changes: FlagFieldChange[] = [];
  const fields = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const field of [...fields].sort()) {
    if (NOT_COMPARED.has(field)) continue;
    diffValue(field, before?.[field], after?.[field], changes);
  }
  return changes;
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isListOfObjects(value: Json): value is Json[] {
  return Array.isArray(value) && value.length > 0 && value.every(isObject);
}

function diffValue(path: string, before: Json, after: Json, out: FlagFieldChange[]): void {
  if (before === undefined && after === undefined) return;
  if (before !== undefined && after !== undefined) {
    if (isObject(before) && isObject(after)) {
      const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
      for (const key of keys) diffValue(`${path}.${key}`, before[key], after[key], out);
      return;
    }
    if (isListOfObjects(before) && isListOfObjects(after)) {
      for (let i = 0; i < Math.max(before.length, after.length); i++)
        diffValue(`${path}.${i}`, before[i], after[i], out);
      return;
    }
    if (sameJson(before, after)) return;
  }
  out.push({ path, before: before ?? null, after: after ?? null });
}

function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
