// The ordered rule editor: users, attribute and percentage rules; add, remove, reorder.
// Each rule is kept as the text of its fields and turned into JSON only on save, so nothing a
// user typed is lost while switching types or operators.

import { h, uid } from "./dom.js";
import { errorSlot, field, percentInput, placeholderFor, srOnly } from "./form-fields.js";
import { focusIn, removeRow } from "./editor-rows.js";
import { OPERATORS, operatorInfo, VALUE_KINDS } from "./operators.js";
import { blankRule, ruleState, toRule } from "./rule-state.js";

const TYPE_LABELS = { users: "Users", attribute: "Attribute", percentage: "Percentage" };

export class RuleEditor {
  #list;
  #rules = [];
  #variantKeys = [];

  constructor(list, addButtons) {
    this.#list = list;
    for (const button of addButtons) {
      button.addEventListener("click", () => this.add(button.dataset.addRule));
    }
  }

  set(rules) {
    this.#rules = rules.map(ruleState);
    this.#render();
  }

  /** The flag's variant keys as typed: the choices of each rule's "Serves" select. */
  setVariantKeys(keys) {
    if (JSON.stringify(keys) === JSON.stringify(this.#variantKeys)) return;
    this.#variantKeys = keys;
    this.#render();
  }

  add(type) {
    const rule = blankRule(type);
    this.#rules.push(rule);
    this.#render(`${rule.id}:first`);
  }

  /** The rules as typed, to tell whether anything changed since `set`. */
  snapshot() {
    return JSON.stringify(this.#rules.map(({ id: _id, ...typed }) => typed));
  }

  /** `{rules}` to send, or `{errors}` found before sending. */
  collect() {
    const rules = [];
    const errors = [];
    this.#rules.forEach((state, i) => {
      const result = toRule(state, i);
      if (result.error) errors.push(result.error);
      else rules.push(result.rule);
    });
    return errors.length > 0 ? { errors } : { rules };
  }

  #move(index, delta) {
    const target = index + delta;
    if (target < 0 || target >= this.#rules.length) return;
    const [rule] = this.#rules.splice(index, 1);
    this.#rules.splice(target, 0, rule);
    // Keep focus on the same button of the moved rule, or on its other move button at an end.
    const stillPossible = delta < 0 ? target > 0 : target < this.#rules.length - 1;
    const button = delta < 0 ? (stillPossible ? "up" : "down") : stillPossible ? "down" : "up";
    this.#render(`${rule.id}:${button}`);
  }

  #remove(index) {
    this.#render(removeRow(this.#rules, index) ?? "add");
  }

  #render(focus) {
    this.#list.replaceChildren(...this.#rules.map((rule, i) => this.#item(rule, i)));
    focusIn(this.#list, focus, "[data-add-rule]");
  }

  #item(rule, index) {
    const n = index + 1;
    const typeId = uid("rule-type");
    const typeSelect = h(
      "select",
      {
        id: typeId,
        "data-focus": `${rule.id}:type`,
        "data-error-for": `rules.${index}.type`,
        onchange: (e) => this.#change(rule, "type", e),
      },
      Object.entries(TYPE_LABELS).map(([value, label]) => h("option", { value, selected: value === rule.type }, label)),
    );
    const tool = (focus, label, text, onclick, options = {}) =>
      h(
        "button",
        {
          type: "button",
          class: `button button-small ${options.quiet ? "button-quiet" : ""}`,
          "data-focus": `${rule.id}:${focus}`,
          "aria-label": label,
          disabled: options.disabled,
          onclick,
        },
        text,
      );
    const head = h(
      "div",
      { class: "rule-head" },
      h("span", { class: "rule-number", "aria-hidden": "true" }, String(n)),
      h("div", { class: "rule-type" }, h("label", { for: typeId }, srOnly(`Rule ${n} `), "Type"), typeSelect),
      this.#serves(rule, index),
      h(
        "div",
        { class: "rule-tools", role: "group", "aria-label": `Rule ${n} actions` },
        tool("up", `Move rule ${n} up`, "↑", () => this.#move(index, -1), { disabled: index === 0 }),
        tool("down", `Move rule ${n} down`, "↓", () => this.#move(index, 1), {
          disabled: index === this.#rules.length - 1,
        }),
        tool("remove", `Remove rule ${n}`, "Remove", () => this.#remove(index), { quiet: true }),
      ),
    );
    return h(
      "li",
      { class: `rule rule-${rule.type}`, "data-rule-index": String(index) },
      head,
      h("div", { class: "rule-body" }, this.#fields(rule, index)),
      errorSlot(`rules.${index}.type`),
      errorSlot(`rules.${index}.variant`),
      errorSlot(`rules.${index}`),
    );
  }

  /** Which variant the rule serves: the user's weighted one, or one by name (shown once the flag has variants). */
  #serves(rule, index) {
    const keys = [...this.#variantKeys];
    if (rule.variant !== "" && !keys.includes(rule.variant)) keys.push(rule.variant); // renamed away: kept, the server names it
    if (keys.length === 0) return undefined;
    const id = uid("rule-serves");
    return h(
      "div",
      { class: "rule-type rule-serves" },
      h("label", { for: id }, srOnly(`Rule ${index + 1} `), "Serves"),
      h(
        "select",
        {
          id,
          "data-focus": `${rule.id}:variant`,
          "data-error-for": `rules.${index}.variant`,
          onchange: (e) => (rule.variant = e.target.value),
        },
        h("option", { value: "", selected: rule.variant === "" }, "Weighted variant"),
        keys.map((key) => h("option", { value: key, selected: key === rule.variant }, key)),
      ),
    );
  }

  /** A select whose choice changes which fields the rule shows: re-render, keep the focus. */
  #change(rule, prop, event) {
    rule[prop] = event.target.value;
    this.#render(`${rule.id}:${prop}`);
  }

  #fields(rule, index) {
    const n = index + 1;
    const path = (name) => `rules.${index}.${name}`;
    const which = () => srOnly(` (rule ${n})`); // a new node per label: a node lives in one place
    // The attributes that tie a control to the rule's state, its focus key and its error path.
    const bound = (prop, focus, errorPath = path(prop)) => ({
      "data-focus": `${rule.id}:${focus}`,
      "data-error-for": errorPath,
      value: rule[prop],
      oninput: (e) => (rule[prop] = e.target.value),
    });

    if (rule.type === "users") {
      return field(
        ["User IDs", which(), " (one per line)"],
        path("userIds"),
        (id, describedBy) =>
          h("textarea", {
            id,
            rows: 3,
            spellcheck: "false",
            class: "mono",
            "aria-describedby": describedBy,
            ...bound("userIds", "first"),
          }),
        "Matches when the user's ID is in this list.",
      );
    }
    if (rule.type === "percentage") {
      return field(
        ["Percentage of users", which()],
        path("percentage"),
        (id, describedBy) => percentInput(id, describedBy, bound("percentage", "first")),
        "0 to 100, up to two decimals. The same user always gets the same answer.",
      );
    }

    const info = operatorInfo(rule.operator);
    if (!info.kinds.includes(rule.kind)) rule.kind = info.kinds[0];
    const attribute = field(["Attribute", which()], path("attribute"), (id, describedBy) =>
      h("input", {
        id,
        type: "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: "plan",
        "aria-describedby": describedBy,
        ...bound("attribute", "first"),
      }),
    );
    const operator = field(["Operator", which()], path("operator"), (id, describedBy) =>
      h(
        "select",
        {
          id,
          "aria-describedby": describedBy,
          "data-focus": `${rule.id}:operator`,
          "data-error-for": path("operator"),
          onchange: (e) => this.#change(rule, "operator", e),
        },
        OPERATORS.map((o) =>
          h(
            "option",
            { value: o.op, selected: o.op === rule.operator },
            o.label === o.op ? o.label : `${o.label} (${o.op})`,
          ),
        ),
      ),
    );
    const kind =
      info.kinds.length > 1
        ? field(["Value type", which()], path("kind"), (id) =>
            h(
              "select",
              { id, "data-focus": `${rule.id}:kind`, onchange: (e) => this.#change(rule, "kind", e) },
              info.kinds.map((k) => h("option", { value: k, selected: k === rule.kind }, VALUE_KINDS[k])),
            ),
          )
        : undefined;
    const valueLabel = info.list ? ["Values", which(), " (one per line)"] : ["Value", which()];
    const value = field(valueLabel, path("value"), (id, describedBy) => {
      const common = { id, "aria-describedby": describedBy };
      if (rule.kind === "boolean" && !info.list) {
        if (rule.value !== "true" && rule.value !== "false") rule.value = "true";
        const { oninput, ...attrs } = bound("value", "value");
        return h(
          "select",
          { ...common, ...attrs, onchange: oninput },
          ["true", "false"].map((v) => h("option", { value: v, selected: v === rule.value }, v)),
        );
      }
      if (info.list || rule.kind === "json") {
        return h("textarea", { ...common, rows: 3, spellcheck: "false", class: "mono", ...bound("value", "value") });
      }
      return h("input", {
        ...common,
        type: "text",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: placeholderFor(rule.kind),
        ...bound("value", "value"),
      });
    });
    return h("div", { class: "attribute-fields" }, attribute, operator, kind, value);
  }
}
