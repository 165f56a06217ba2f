// The try-it panel: evaluates the saved flag for a userId and attributes through the API.

import { api } from "./api.js";
import { $, clearFieldErrors, setFieldError, show, showFieldErrors } from "./dom.js";

const REASONS = {
  disabled: "the flag is off",
  no_rules: "the flag is on and has no rules",
  rule_match: "a rule matched",
  no_rule_match: "no rule matched",
};

function describeRule(rule) {
  if (!rule) return "";
  if (rule.type === "users") return `users (${rule.userIds.length} ID${rule.userIds.length === 1 ? "" : "s"})`;
  if (rule.type === "percentage") return `${rule.percentage}% of users`;
  return `${rule.attribute} ${rule.operator} ${JSON.stringify(rule.value)}`;
}

export class TryIt {
  #key;
  #rules = [];
  #onError;

  constructor({ onError }) {
    this.#onError = onError;
    $("#try-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#run();
    });
  }

  /** The saved flag the panel evaluates. */
  setFlag(flag) {
    this.#key = flag.key;
    this.#rules = flag.rules;
    // An answer about an earlier version of the flag would mislead.
    show($("#try-result"), false);
  }

  reset() {
    show($("#try-result"), false);
    clearFieldErrors($("#try-form"));
  }

  async #run() {
    const form = $("#try-form");
    clearFieldErrors(form);
    show($("#try-result"), false);
    const context = {};
    const userId = $("#try-user").value;
    if (userId !== "") context.userId = userId;
    const text = $("#try-attributes").value.trim();
    if (text !== "") {
      let attributes;
      try {
        attributes = JSON.parse(text);
      } catch {
        attributes = undefined;
      }
      if (!attributes || typeof attributes !== "object" || Array.isArray(attributes)) {
        setFieldError(form, "attributes", 'Enter a JSON object, such as {"plan": "pro"}');
        $("#try-attributes").focus();
        return;
      }
      context.attributes = attributes;
    }
    try {
      this.#show(context, await api.evaluate(this.#key, context));
    } catch (error) {
      if (error.code === "validation_error" && error.details.length > 0) {
        const { leftover } = showFieldErrors(form, error.details);
        if (leftover.length > 0) this.#onError(error);
      } else this.#onError(error);
    }
  }

  #show(context, result) {
    const who = context.userId === undefined ? "no user ID" : `user “${context.userId}”`;
    const attributes = context.attributes ? ` with ${Object.keys(context.attributes).length} attribute(s)` : "";
    $("#try-for").textContent = who + attributes;
    const enabled = $("#try-enabled");
    enabled.textContent = String(result.enabled);
    enabled.className = `pill ${result.enabled ? "pill-on" : "pill-off"}`;
    const reason = $("#try-reason");
    reason.textContent = result.reason;
    reason.title = REASONS[result.reason] ?? "";
    $("#try-rule").textContent =
      result.ruleIndex === undefined
        ? "—"
        : `rule ${result.ruleIndex + 1} (ruleIndex ${result.ruleIndex}): ${describeRule(this.#rules[result.ruleIndex])}`;
    $("#try-variant").textContent = result.variant ?? "—";
    $("#try-value").textContent = result.value === undefined ? "—" : JSON.stringify(result.value);
    show($("#try-result"), true);
  }
}
