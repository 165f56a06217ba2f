// A flag history entry (docs/flags.md "History") in words: who, what and, for every change, a
// label with the value before and after. Pure: it returns plain strings, which the history view
// puts into the page as text.

const ACTIONS = {
  created: "Created",
  updated: "Updated",
  deleted: "Deleted",
  scheduled_change_applied: "Scheduled change applied",
};

const LISTS = { rules: "Rule", prerequisites: "Prerequisite", variants: "Variant" };
const MAX_ITEMS = 10;

export function actionLabel(action) {
  return ACTIONS[action] ?? action;
}

export function actorLabel(actor) {
  if (actor?.type === "api_key") return `API key “${actor.name ?? actor.id}”`;
  if (actor?.type === "schedule") return `scheduled change ${actor.id}`;
  if (actor?.type === "in_process") return "the application (in process)";
  return actor?.type ?? "unknown";
}

/** A value as a reader wants it: strings quoted, lists shortened, nothing as "(none)". */
export function formatValue(value) {
  if (value === null || value === undefined) return "(none)";
  if (typeof value === "string") return `“${value}”`;
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_ITEMS).map(formatValue).join(", ");
    return value.length > MAX_ITEMS ? `[${shown}, … ${value.length - MAX_ITEMS} more]` : `[${shown}]`;
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const onOff = (value) => (value === true ? "on" : value === false ? "off" : formatValue(value));

function ruleSummary(rule) {
  const summary = ruleText(rule);
  return rule.variant === undefined ? summary : `${summary} → variant ${rule.variant}`;
}

function ruleText(rule) {
  if (rule.type === "users") return `users ${formatValue(rule.userIds ?? [])}`;
  if (rule.type === "percentage") return `${rule.percentage}% of users`;
  if (rule.type === "attribute") return `${rule.attribute} ${rule.operator} ${formatValue(rule.value)}`;
  return formatValue(rule);
}

function itemSummary(list, item) {
  if (item === null || item === undefined || typeof item !== "object") return formatValue(item);
  if (list === "rules") return ruleSummary(item);
  if (list === "prerequisites") return `${item.flagKey} must be ${onOff(item.enabled)}`;
  if (list === "variants")
    return `${item.key} (${item.weight}%)${item.value === undefined ? "" : ` = ${formatValue(item.value)}`}`;
  return formatValue(item);
}

/** One item of a list as a line: added (no before), removed (no after) or changed. */
function itemLine(list, index, before, after) {
  const noun = `${LISTS[list]} ${index + 1}`;
  const b = before === null || before === undefined ? undefined : itemSummary(list, before);
  const a = after === null || after === undefined ? undefined : itemSummary(list, after);
  if (b === undefined) return { label: `${noun} added`, after: a };
  if (a === undefined) return { label: `${noun} removed`, before: b };
  return { label: noun, before: b, after: a };
}

/** A whole list replaced at once (one side empty, or a list of plain values): item by item. */
function listLines(list, before, after) {
  const b = Array.isArray(before) ? before : [];
  const a = Array.isArray(after) ? after : [];
  const lines = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (JSON.stringify(b[i]) === JSON.stringify(a[i])) continue;
    lines.push(itemLine(list, i, b[i], a[i]));
  }
  return lines;
}

function fieldValue(field, value) {
  if (field === "enabled") return onOff(value);
  if (field === "percentage" || field === "weight") return value === null ? "(none)" : `${value}%`;
  return formatValue(value);
}

/** The lines of one `{path, before, after}` change. */
export function changeLines({ path, before, after }) {
  const [top, index, ...rest] = path.split(".");
  if (top in LISTS) {
    if (index === undefined) return listLines(top, before, after);
    const i = Number(index);
    if (rest.length === 0) return [itemLine(top, i, before, after)];
    const field = rest.join(".");
    return [
      { label: `${LISTS[top]} ${i + 1} ${field}`, before: fieldValue(field, before), after: fieldValue(field, after) },
    ];
  }
  if (top === "enabled") return [{ label: "Enabled", before: onOff(before), after: onOff(after) }];
  if (top === "description") {
    const text = (v) => (v === null ? "(none)" : v === "" ? "(empty)" : formatValue(v));
    return [{ label: "Description", before: text(before), after: text(after) }];
  }
  return [{ label: path, before: formatValue(before), after: formatValue(after) }];
}

/**
 * A rule whose type changed has every field of both types among the changes (`rules.0.type`,
 * `rules.0.percentage`, `rules.0.userIds`, …): put both rules back together and show one line,
 * `Rule 1: 25% of users → users [“a”]`, instead of a line per field.
 */
function mergeRetypedRules(changes) {
  const retyped = new Map();
  for (const { path, before, after } of changes) {
    const match = /^rules\.(\d+)\.type$/.exec(path);
    if (match && before !== null && after !== null) retyped.set(match[1], { before: {}, after: {} });
  }
  if (retyped.size === 0) return changes;
  const merged = [];
  for (const change of changes) {
    const match = /^rules\.(\d+)\.(\w+)$/.exec(change.path);
    const rule = match && retyped.get(match[1]);
    if (!rule) {
      merged.push(change);
      continue;
    }
    if (change.before !== null) rule.before[match[2]] = change.before;
    if (change.after !== null) rule.after[match[2]] = change.after;
    if (match[2] === "type") merged.push({ path: `rules.${match[1]}`, before: rule.before, after: rule.after });
  }
  return merged;
}

/**
 * An entry in words. A created flag lists what it was created with (nothing for empty fields),
 * a deleted one what it had; other entries every change, before → after.
 */
export function describeEntry(entry) {
  const lines = [];
  for (const change of mergeRetypedRules(entry.changes ?? [])) {
    for (const line of changeLines(change)) {
      if (entry.action === "created") {
        if (line.after === "(empty)") continue;
        delete line.before;
      }
      if (entry.action === "deleted") {
        if (line.before === "(empty)") continue;
        delete line.after;
      }
      lines.push(line);
    }
  }
  return { title: actionLabel(entry.action), actor: actorLabel(entry.actor), lines };
}
