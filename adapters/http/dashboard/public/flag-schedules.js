// A flag's scheduled changes (docs/flags.md "Scheduled changes"): the list by time, with status
// and who made each; a form to add one (a local date-time and the change); cancel or remove one.

import { $, clearFieldErrors, h, show, showFieldErrors, timeElement } from "./dom.js";
import { flagApi } from "./flag-api.js";
import { actorLabel } from "./history-diff.js";
import { Page } from "./page-kit.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What a schedule's `changes` do, in words. */
export function describeChanges(changes) {
  const parts = [];
  if (changes.enabled !== undefined) parts.push(changes.enabled ? "switch on" : "switch off");
  if (changes.rules) parts.push(`set ${plural(changes.rules.length, "rule")}`);
  if (changes.prerequisites) parts.push(`set ${plural(changes.prerequisites.length, "prerequisite")}`);
  if (changes.variants) parts.push(`set ${plural(changes.variants.length, "variant")}`);
  const text = parts.join(", ") || "no change";
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export class FlagSchedules extends Page {
  #key;
  #writable = true;
  #busy = false;
  #loading = 0;
  #formChanges;

  /** `formChanges()` gives `{changes}` from the editor's rules and prerequisites, or `{error}`. */
  constructor({ onError, onStatus, formChanges }) {
    super({ onError, onStatus });
    this.#formChanges = formChanges;
    $("#schedule-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.#add();
    });
    $("#schedule-change").addEventListener("change", (event) => {
      show($("#schedule-json-field"), event.target.value === "json");
    });
  }

  async load(key, writable) {
    this.#key = key;
    this.#writable = writable;
    show($("#schedule-form"), writable);
    clearFieldErrors($("#schedule-form"));
    show($("#schedule-form-error"), false);
    const token = ++this.#loading;
    try {
      const page = await flagApi.schedules(key);
      if (token === this.#loading) this.#render(page);
    } catch (error) {
      if (token === this.#loading) this.onError(error);
    }
  }

  clear() {
    this.#key = undefined;
    this.#loading++;
    $("#schedule-list").replaceChildren();
  }

  #render({ schedules, next }) {
    $("#schedule-list").replaceChildren(...schedules.map((s) => this.#item(s)));
    show($("#schedules-empty"), schedules.length === 0);
    show($("#schedules-more"), Boolean(next));
  }

  #item(schedule) {
    const pending = schedule.status === "pending";
    const what = describeChanges(schedule.changes);
    return h(
      "li",
      { class: "schedule", "data-schedule-id": schedule.id },
      h(
        "p",
        {},
        timeElement(schedule.at),
        " ",
        h("span", { class: `pill schedule-${schedule.status}` }, schedule.status),
      ),
      h("p", { class: "schedule-what" }, what),
      schedule.failure
        ? h("p", { class: "field-error" }, `${schedule.failure.reason}: ${schedule.failure.message}`)
        : undefined,
      h("p", { class: "hint" }, "By ", actorLabel(schedule.createdBy)),
      this.#writable
        ? h(
            "button",
            {
              type: "button",
              class: "button button-small",
              "aria-label": `${pending ? "Cancel" : "Remove"} the change “${what}” at ${new Date(schedule.at).toLocaleString()}`,
              onclick: (event) => void this.#delete(schedule, event.target),
            },
            pending ? "Cancel" : "Remove",
          )
        : undefined,
    );
  }

  #changes() {
    const kind = $("#schedule-change").value;
    if (kind === "on" || kind === "off") return { changes: { enabled: kind === "on" } };
    if (kind === "form") return this.#formChanges();
    try {
      const changes = JSON.parse($("#schedule-json").value);
      if (typeof changes === "object" && changes !== null && !Array.isArray(changes)) return { changes };
    } catch {
      // reported below
    }
    return { error: 'Enter a JSON object, such as {"variants": []}' };
  }

  async #add() {
    const form = $("#schedule-form");
    if (this.#busy || this.#key === undefined) return;
    clearFieldErrors(form);
    show($("#schedule-form-error"), false);
    const local = $("#schedule-at").value;
    const at = local === "" ? undefined : new Date(local);
    const problems = [];
    if (!at || Number.isNaN(at.getTime())) problems.push({ path: "at", message: "Choose a date and time" });
    const { changes, error } = this.#changes();
    if (error) problems.push({ path: "changes", message: error });
    if (problems.length > 0) {
      showFieldErrors(form, problems).firstControl?.focus();
      return;
    }
    this.#busy = true;
    $("#schedule-add").disabled = true;
    try {
      const created = await flagApi.createSchedule(this.#key, { at: at.toISOString(), changes });
      this.onStatus(`Scheduled for ${new Date(created.at).toLocaleString()}: ${describeChanges(created.changes)}.`);
      $("#schedule-at").value = "";
      await this.load(this.#key, this.#writable);
    } catch (failure) {
      if (failure.code === "validation_error" && failure.details.length > 0) {
        const { leftover, firstControl } = showFieldErrors(form, failure.details);
        if (leftover.length > 0) this.#formError(leftover.map((d) => `${d.path}: ${d.message}`).join(" "));
        firstControl?.focus();
      } else if (failure.isAuth) this.onError(failure);
      else this.#formError(failure.message);
    } finally {
      this.#busy = false;
      $("#schedule-add").disabled = false;
    }
  }

  async #delete(schedule, button) {
    button.disabled = true;
    try {
      await flagApi.deleteSchedule(this.#key, schedule.id);
      this.onStatus(schedule.status === "pending" ? "The scheduled change was cancelled." : "The record was removed.");
    } catch (error) {
      if (error.code !== "not_found") this.onError(error);
    }
    await this.load(this.#key, this.#writable);
    $("#schedules-title").focus();
  }

  #formError(message) {
    const box = $("#schedule-form-error");
    box.textContent = message;
    show(box, true);
  }
}
