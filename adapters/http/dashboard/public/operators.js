// Attribute rule operators (docs/api.md "Flags"). Names, value kinds and which take a list come
// from the server's operator table (operator-table.js, generated from src/flags/evaluation/operators.ts);
// this file adds only what a person reads: the labels, and how typed text becomes JSON.

import { OPERATOR_TABLE } from "./operator-table.js";

/** Value kinds: how the text in the value field becomes JSON. */
export const VALUE_KINDS = {
  string: "Text",
  number: "Number",
  boolean: "Boolean",
  date: "Date (ISO 8601)",
  version: "Version (semver)",
  json: "JSON",
};

const LABELS = {
  equals: "equals",
  not_equals: "does not equal",
  in: "is one of",
  not_in: "is none of",
  contains: "contains",
  starts_with: "starts with",
  ends_with: "ends with",
  gt: "is greater than",
  gte: "is at least",
  lt: "is less than",
  lte: "is at most",
  semver_eq: "version equals",
  semver_gt: "version is above",
  semver_lt: "version is below",
};

export const OPERATORS = OPERATOR_TABLE.map(({ op, kinds, list }) => ({
  op,
  // An operator added to the table before it has a label still shows, by its name.
  label: LABELS[op] ?? op.replaceAll("_", " "),
  kinds,
  ...(list ? { list: true } : {}),
}));

export const operatorInfo = (op) => OPERATORS.find((o) => o.op === op) ?? OPERATORS[0];

/** The kind that shows a value received from the server without changing it. */
export function kindOf(op, value) {
  const info = operatorInfo(op);
  const items = Array.isArray(value) ? value : [value];
  const types = new Set(items.map((v) => typeof v));
  if (types.size !== 1) return "json";
  const [type] = types;
  if (type === "number" && info.kinds.includes("number")) return "number";
  if (type === "boolean" && info.kinds.includes("boolean")) return "boolean";
  if (type === "string") {
    if (info.kinds.includes("string")) return "string";
    if (info.kinds.includes("date")) return "date";
    if (info.kinds.includes("version")) return "version";
  }
  return info.kinds.includes("json") ? "json" : info.kinds[0];
}

/** A value as the text the field shows. List operators: one item per line. */
export function valueToText(op, kind, value) {
  if (kind === "json") return JSON.stringify(value);
  if (operatorInfo(op).list && Array.isArray(value)) return value.map(String).join("\n");
  return value === undefined || value === null ? "" : String(value);
}

/**
 * The text of the value field as JSON for `kind`, or `{error}` when it cannot be represented
 * (the server checks everything else and says so in its 422).
 */
export function textToValue(op, kind, text) {
  if (kind === "json") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: 'Enter valid JSON, such as "pro", 42 or ["a", 1]' };
    }
  }
  const convert = (item) => {
    if (kind === "number") {
      const n = Number(item);
      return item.trim() === "" || !Number.isFinite(n) ? { error: `"${item}" is not a number` } : { value: n };
    }
    if (kind === "boolean") {
      if (item === "true" || item === "false") return { value: item === "true" };
      return { error: "Choose true or false" };
    }
    return { value: item };
  };
  if (operatorInfo(op).list) {
    const items = text
      .split("\n")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const values = [];
    for (const item of items) {
      const converted = convert(item);
      if ("error" in converted) return converted;
      values.push(converted.value);
    }
    return { value: values };
  }
  return convert(kind === "number" ? text.trim() : text);
}
