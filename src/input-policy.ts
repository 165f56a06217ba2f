import type { ErrorDetail } from "./errors.js";

/**
 * What every value must be before it may reach storage, whatever the backend: the one place that
 * decides it, so memory, SQLite, PostgreSQL and MySQL answer the same request the same way.
 * docs/http.md ("Input every backend accepts") explains each rule.
 *
 * - No U+0000 (NUL) in any string or object key: PostgreSQL's text and jsonb cannot hold it, and a
 *   lossless escape would make stored values differ from what was sent. Refused, naming the field.
 * - No unpaired UTF-16 surrogate: it has no UTF-8 form, so each database would store it
 *   differently (as U+FFFD, or not at all).
 * - Numbers are finite: JSON.parse turns `1e400` into Infinity, which JSON cannot give back.
 * - At most MAX_NESTING_DEPTH levels of objects and arrays, counted from the value checked (a
 *   request body, or one element of a batch): deeper JSON overflows recursive code.
 * - No object key `__proto__`: an assignment drops it (or swaps the object's prototype), so it
 *   could be stored, copied or looked up inconsistently.
 */

export const MAX_NESTING_DEPTH = 64;

/** Keys that plain property assignment treats specially: refused wherever a key is accepted. */
export const RESERVED_KEY = "__proto__";

const NUL_RULE = "must not contain the NUL character (U+0000)";
const SURROGATE_RULE = "must not contain unpaired surrogates (ill-formed UTF-16)";
const FINITE_RULE = "must be a finite number";
const RESERVED_RULE = `is a reserved name ("${RESERVED_KEY}" cannot be used as a key)`;
const DEPTH_RULE = `is nested more than ${MAX_NESTING_DEPTH} levels deep`;

// String.prototype.isWellFormed is in Node 20 (V8 11.3); TypeScript's ES2023 lib predates it.
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** Why `text` cannot be stored as it is, or undefined when it can. Native scans: fast on megabytes. */
export function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return NUL_RULE;
  if (!isWellFormed(text)) return SURROGATE_RULE;
  return undefined;
}

/** Whether `text` could be stored (and so could name something stored): for ids from paths. */
export function isStorableText(text: string): boolean {
  return textProblem(text) === undefined;
}

interface Node {
  value: unknown;
  depth: number;
  parent: Node | undefined;
  key: PropertyKey;
}

function pathOf(node: Node | undefined, prefix: readonly PropertyKey[], keep = Number.POSITIVE_INFINITY): string {
  const keys: PropertyKey[] = [];
  for (let n = node; n?.parent !== undefined; n = n.parent) keys.push(n.key);
  keys.reverse();
  return [...prefix, ...keys.slice(0, keep)].map(String).join(".");
}

/**
 * The first rule `input` breaks, as a detail naming the field (`properties.big`), or undefined.
 * Iterative, so no nesting depth can overflow the stack; stops at the first problem. A cycle (only
 * possible in process) ends as "nested too deep".
 */
export function inputProblem(input: unknown, prefix: readonly PropertyKey[] = []): ErrorDetail | undefined {
  if (breaksNoRule(input, 0)) return undefined;
  const stack: Node[] = [{ value: input, depth: 0, parent: undefined, key: "" }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === "string") {
      const problem = textProblem(value);
      if (problem) return { path: pathOf(node, prefix), message: problem };
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return { path: pathOf(node, prefix), message: FINITE_RULE };
    } else if (typeof value === "object" && value !== null) {
      // Containers at depth MAX_NESTING_DEPTH may hold only scalars: depth counts the containers.
      if (node.depth >= MAX_NESTING_DEPTH) return { path: pathOf(node, prefix, 2), message: DEPTH_RULE };
      const depth = node.depth + 1;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth, parent: node, key: i });
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const child: Node = { value: (value as Record<string, unknown>)[key], depth, parent: node, key };
          const problem = key === RESERVED_KEY ? RESERVED_RULE : textProblem(key);
          if (problem) return { path: pathOf(child, prefix), message: problem };
          stack.push(child);
        }
      }
    }
  }
  return undefined;
}

/**
 * Whether `value` breaks none of the rules: the common answer, found without building the paths
 * inputProblem reports (which allocates for every value it visits). Recursion stops at the depth
 * limit, so it cannot overflow the stack either; any "no" is explained by the walk above. `depth`
 * counts the containers above `value` in what is checked (1 for a field of a request body), so a
 * caller that vouches for the rest of a value can check one field of it alone.
 */
export function breaksNoRule(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return isStorableText(value);
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_NESTING_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!breaksNoRule(value[i], depth + 1)) return false;
    return true;
  }
  for (const key of Object.keys(value)) {
    if (key === RESERVED_KEY || !isStorableText(key)) return false;
    if (!breaksNoRule((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}
