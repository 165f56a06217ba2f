import type { z } from "zod";
import { type ErrorDetail, FlagpostError } from "./errors.js";
import { inputProblem } from "./input-policy.js";

/**
 * zod turns wire input into typed values; this file turns zod's issues into sentences a person
 * reads: `"rules.0.percentage" must be at most 100`. A schema's own message (set with `error:`
 * or in a refinement) wins over the phrasing here.
 */

type RawIssue = z.core.$ZodRawIssue;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const ARTICLE: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  int: "an integer",
  bigint: "an integer",
  date: "a date",
  record: "an object",
  map: "an object",
  tuple: "an array",
  set: "an array",
  null: "null",
};

function unitFor(origin: string): string {
  if (origin === "string") return " characters";
  if (origin === "array" || origin === "set") return " items";
  return "";
}

function phrase(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      if (issue.input === undefined) return "is required";
      const expected = ARTICLE[issue.expected] ?? issue.expected;
      return `must be ${expected} (got ${describe(issue.input)})`;
    }
    case "too_small": {
      const { origin, minimum, inclusive } = issue;
      if (origin === "string" && Number(minimum) === 1) return "must not be empty";
      if (origin === "array" && Number(minimum) === 1) return "must hold at least 1 item";
      if (origin === "number" || origin === "bigint")
        return `must be ${inclusive ? "at least" : "greater than"} ${minimum}`;
      return `must hold at least ${minimum}${unitFor(origin)}`;
    }
    case "too_big": {
      const { origin, maximum, inclusive } = issue;
      if (origin === "number" || origin === "bigint")
        return `must be ${inclusive ? "at most" : "less than"} ${maximum}`;
      return `must hold at most ${maximum}${unitFor(origin)}`;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      return `has an invalid ${issue.format} format`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (options) return `must be one of ${options.map((v) => JSON.stringify(v)).join(", ")}`;
      return "does not match any accepted shape";
    }
    case "invalid_key":
      return "has an invalid key";
    case "invalid_element":
      return "has an invalid element";
    default:
      return undefined;
  }
}

/** Per-parse error map: phrases for zod's built-in issues, without touching zod's global config. */
const errorMap = (issue: RawIssue): string | undefined => phrase(issue);

function pathOf(path: PropertyKey[]): string {
  return path.map(String).join(".");
}

export function issuesToDetails(issues: z.core.$ZodIssue[], prefix: PropertyKey[] = []): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) details.push({ path: pathOf([...path, key]), message: "is not a known field" });
    } else {
      details.push({ path: pathOf(path), message: issue.message });
    }
  }
  return details;
}

export function detailText(detail: ErrorDetail): string {
  return detail.path === "" ? `body ${detail.message}` : `"${detail.path}" ${detail.message}`;
}

export function validationError(details: ErrorDetail[]): FlagpostError {
  const [first, ...rest] = details;
  const head = first ? detailText(first) : "the request is invalid";
  const tail = rest.length === 0 ? "" : ` (and ${rest.length} more problem${rest.length === 1 ? "" : "s"})`;
  return new FlagpostError("validation_error", head + tail, { details });
}

/**
 * Parses `input` or throws a `validation_error` FlagpostError whose message names the field.
 * Every input first passes input-policy.ts (NUL, surrogates, non-finite numbers, depth,
 * `__proto__`), before zod or anything recursive sees it.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix: PropertyKey[] = []): z.output<S> {
  const problem = inputProblem(input, prefix);
  if (problem) throw validationError([problem]);
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return result.data;
  throw validationError(issuesToDetails(result.error.issues, prefix));
}

/**
 * The schema alone, without parseInput's walk over every value: for an envelope whose contents are
 * each walked where they are used, so a large body is walked once, not once per layer (POST
 * /v1/events/batch: the tracker walks every event it stores; docs/events.md, "Ingestion").
 */
export function checkShape<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: PropertyKey[] = [],
): { ok: true; value: z.output<S> } | { ok: false; details: ErrorDetail[] } {
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, details: issuesToDetails(result.error.issues, prefix) };
}

/** checkShape that throws `validation_error` with the details, as parseInput does. */
export function parseShape<S extends z.ZodType>(schema: S, input: unknown, prefix: PropertyKey[] = []): z.output<S> {
  const checked = checkShape(schema, input, prefix);
  if (checked.ok) return checked.value;
  throw validationError(checked.details);
}

/** Like parseInput, but returns the details instead of throwing (batch routes collect them). */
export function checkInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix: PropertyKey[] = [],
): { ok: true; value: z.output<S> } | { ok: false; details: ErrorDetail[] } {
  const problem = inputProblem(input, prefix);
  if (problem) return { ok: false, details: [problem] };
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, details: issuesToDetails(result.error.issues, prefix) };
}
