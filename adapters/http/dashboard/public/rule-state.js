// A rule as the editor keeps it (the text of its fields) and as the wire carries it (JSON).
// Text is turned into JSON only on save, so nothing typed is lost while switching types or operators.

import { uid } from "./dom.js";
import { kindOf, textToValue, valueToText } from "./operators.js";

export function blankRule(type) {
  return {
    id: uid("rule"),
    type,
    userIds: "",
    attribute: "",
    operator: "equals",
    kind: "string",
    value: "",
    percentage: "",
    variant: "", // the variant the rule serves by name; "" for the user's weighted one
  };
}

/** A rule from the server as editable state. */
export function ruleState(rule) {
  const state = blankRule(rule.type);
  if (rule.type === "users") state.userIds = (rule.userIds ?? []).join("\n");
  if (rule.type === "attribute") {
    state.attribute = rule.attribute ?? "";
    state.operator = rule.operator ?? "equals";
    state.kind = kindOf(state.operator, rule.value);
    state.value = valueToText(state.operator, state.kind, rule.value);
  }
  if (rule.type === "percentage") state.percentage = rule.percentage === undefined ? "" : String(rule.percentage);
  state.variant = rule.variant ?? "";
  return state;
}

/** State → the wire rule (with the variant it serves, if any), or the problems that stop it from being sent. */
export function toRule(state, index) {
  const result = toBareRule(state, index);
  if (result.rule && state.variant !== "") result.rule.variant = state.variant;
  return result;
}

function toBareRule(state, index) {
  const at = (field) => `rules.${index}.${field}`;
  if (state.type === "users") {
    return {
      rule: {
        type: "users",
        userIds: state.userIds
          .split("\n")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
      },
    };
  }
  if (state.type === "percentage") {
    const n = Number(state.percentage);
    if (state.percentage.trim() === "" || !Number.isFinite(n))
      return { error: { path: at("percentage"), message: "Enter a number from 0 to 100" } };
    return { rule: { type: "percentage", percentage: n } };
  }
  const converted = textToValue(state.operator, state.kind, state.value);
  if ("error" in converted) return { error: { path: at("value"), message: converted.error } };
  return {
    rule: { type: "attribute", attribute: state.attribute.trim(), operator: state.operator, value: converted.value },
  };
}
