// Attribute rule operators (docs/api.md "Flags"), with the kinds of value each accepts.
// test/dashboard checks this list against the server's ATTRIBUTE_OPERATORS.

/** Value kinds: how the text in the value field becomes JSON. */
export const VALUE_KINDS = {
  string: "Text",
  number: "Number",
  boolean: "Boolean",
  date: "Date (ISO 8601)",
  version: "Version (semver)",
  json: "JSON",
};

export const OPERATORS = [
  { op: "equals", label: "equals", kinds: ["string", "number", "boolean", "json"] },
  { op: "not_equals", label: "does not equal", kinds: ["string", "number", "boolean", "json"] },
  { op: "in", label: "is one of", kinds: ["string", "number", "boolean", "json"], list: true },
  { op: "not_in", label: "is none of", kinds: ["string", "number", "boolean", "json"], list: true },
  { op: "contains", label: "contains", kinds: ["string"] },
  { op: "starts_with", label: "starts with", kinds: ["string"] },
  { op: "ends_with", label: "ends with", kinds: ["string"] },
  { op: "gt", label: "is greater than", kinds: ["number", "date"] },
  { op: "gte", label: "is at least", kinds: ["number", "date"] },
  { op: "lt", label: "is less than", kinds: ["number", "date"] },
  { op: "lte", label: "is at most", kinds: ["number", "date"] },
  { op: "semver_eq", label: "version equals", kinds: ["version"] },
  { op: "semver_gt", label: "version is above", kinds: ["version"] },
  { op: "semver_lt", label: "version is below", kinds: ["version"] },
];

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
