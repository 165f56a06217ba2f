// One webhook endpoint (#/webhooks/{id}): its settings, its recent deliveries
// (GET /v1/webhooks/{id}/events, newest first) with their status, each delivery's attempts
// (…/events/{eventId}/attempts) and Replay (…/replay). While a delivery is pending or retrying
// the page looks again every second, at most 30 times in a row; Refresh looks at once.

import { mailApi } from "./mail-api.js";
import { h, show, timeElement } from "./dom.js";
import {
  actWith,
  cell,
  chip,
  openScoped,
  Page,
  pageSection,
  scopeNote,
  showMissing,
  showScopeNote,
} from "./page-kit.js";
import { PagedList } from "./paged-list.js";
import { NO_WEBHOOK_SCOPE } from "./webhook-list.js";
import { WebhookSettings } from "./webhook-settings.js";

// pending: not tried yet (or replayed); attempting: tried, a retry is scheduled (src/ports/storage/webhooks.ts).
const DELIVERY_LABELS = { pending: "Pending", attempting: "Retrying", success: "Delivered", failed: "Failed" };
const POLL_MS = 1000;
const MAX_POLLS = 30;

const open = (delivery) => delivery.status === "pending" || delivery.status === "attempting";

function attemptItem(attempt) {
  const answered = attempt.http_status_code > 0;
  const ok = answered && attempt.http_status_code < 300;
  return h(
    "li",
    { class: "attempt", "data-status": String(attempt.http_status_code) },
    h(
      "div",
      { class: "timeline-head" },
      chip("attempt", ok ? "success" : "failed", answered ? `HTTP ${attempt.http_status_code}` : "No answer"),
      timeElement(attempt.sent_at),
      h("span", { class: "muted" }, `${attempt.duration_ms} ms`),
    ),
    attempt.response ? h("pre", { class: "attempt-response" }, attempt.response) : undefined,
  );
}

export class WebhookView extends Page {
  #id;
  #webhook;
  #list;
  #attempts = new Map();
  /** Each expanded delivery's detail (GET …/events/{eventId}): its payload and next attempt. */
  #details = new Map();
  #settings;
  #expanded = new Set();
  #polls = 0;
  #timer;
  #ui;

  constructor({ onError, onStatus }) {
    super({ onError, onStatus });
    const refresh = h("button", { type: "button", class: "button", onclick: () => this.#refresh(true) }, "Refresh");
    const settingsPanel = new WebhookSettings({ onError, onStatus, onChanged: () => this.#reload() });
    this.#settings = settingsPanel;
    const settings = settingsPanel.panel;
    const list = new PagedList({
      label: "Deliveries",
      columns: ["Event", "Created", "Status", "", ""],
      moreText: "Load more deliveries",
      empty: h(
        "p",
        { class: "hint", hidden: true },
        "No deliveries yet: one is stored for each subscribed event that happens from now on.",
      ),
      fetchPage: (page) => mailApi.webhookEvents(this.#id, page),
      rows: (delivery) => this.#rows(delivery),
      onError,
    });
    this.#list = list;
    const deliveries = h(
      "section",
      { class: "stack deliveries", "aria-labelledby": "deliveries-title", hidden: true },
      h("h2", { id: "deliveries-title" }, "Recent deliveries"),
      ...list.parts,
    );
    const note = scopeNote();
    const missing = h("div", { class: "panel", hidden: true });
    const loading = h("p", { class: "hint", hidden: true }, "Loading endpoint…");
    const { section, heading } = pageSection(
      "webhook-view",
      "Endpoint",
      { crumb: { href: "#/webhooks", text: "← All endpoints" }, actions: [refresh] },
      note,
      loading,
      missing,
      settings,
      deliveries,
    );
    this.#ui = { section, heading, refresh, settings, deliveries, note, missing, loading };
  }

  async open(id) {
    const ui = this.#ui;
    clearTimeout(this.#timer);
    if (this.#id !== id) {
      this.#expanded.clear();
      this.#attempts.clear();
      this.#details.clear();
      this.#list.items = [];
    }
    this.#id = id;
    this.#polls = 0;
    ui.heading.textContent = "Endpoint";
    for (const el of [ui.missing, ui.settings, ui.deliveries, ui.refresh]) show(el, false);
    return openScoped(ui, "full_access", {
      load: async () => {
        this.#webhook = await mailApi.getWebhook(id);
        if (this.#id !== id) return;
        this.#renderSettings();
        await this.#refresh(false);
      },
      denied: () => showScopeNote(ui.note, NO_WEBHOOK_SCOPE),
      notFound: () => showMissing(ui, "Endpoint not found", `No webhook endpoint has the id ${id}.`),
      loading: ui.loading,
      onError: this.onError,
    });
  }

  #renderSettings() {
    this.#ui.heading.textContent = this.#webhook.endpoint;
    this.#settings.render(this.#webhook);
    show(this.#ui.refresh, true);
  }

  /** After an edit, a status change or a rotation: the endpoint as stored now. */
  async #reload() {
    this.#webhook = await mailApi.getWebhook(this.#id);
    this.#renderSettings();
  }

  /** Loads the deliveries shown (at least one page) and the attempts of the expanded ones. */
  async #refresh(byHand) {
    const id = this.#id;
    clearTimeout(this.#timer);
    if (byHand) this.#polls = 0;
    try {
      const limit = Math.min(100, Math.max(20, this.#list.items.length));
      const page = await mailApi.webhookEvents(id, { limit });
      const expanded = [...this.#expanded];
      const [attempts, details, hook] = await Promise.all([
        Promise.all(expanded.map((eventId) => mailApi.attempts(id, eventId))),
        Promise.all(expanded.map((eventId) => mailApi.webhookEvent(id, eventId))),
        byHand ? mailApi.getWebhook(id) : undefined,
      ]);
      if (this.#id !== id) return;
      expanded.forEach((eventId, i) => {
        this.#attempts.set(eventId, attempts[i].data);
        this.#details.set(eventId, details[i]);
      });
      if (hook) {
        this.#webhook = hook;
        this.#renderSettings();
      }
      show(this.#ui.deliveries, true);
      this.#list.replace(page);
      this.#schedule();
    } catch (error) {
      this.onError(error);
    }
  }

  #schedule() {
    const visible = !this.#ui.section.hidden;
    if (!visible || this.#polls >= MAX_POLLS || !this.#list.items.some(open)) return;
    this.#polls += 1;
    const id = this.#id;
    this.#timer = setTimeout(() => {
      if (this.#id === id && !this.#ui.section.hidden) void this.#refresh(false);
    }, POLL_MS);
  }

  async #toggle(delivery) {
    if (this.#expanded.delete(delivery.id)) return this.#list.render();
    this.#expanded.add(delivery.id);
    await this.#refresh(false);
  }

  #replay(delivery, button) {
    return actWith(
      button,
      async () => {
        await mailApi.replay(this.#id, delivery.id);
        this.#expanded.add(delivery.id);
        this.onStatus(`Replayed the ${delivery.type} event: it is being sent again.`);
        await this.#refresh(true);
      },
      this.onError,
    );
  }

  #rows(delivery) {
    const expanded = this.#expanded.has(delivery.id);
    const panelId = `attempts-${delivery.id}`;
    const toggle = h(
      "button",
      {
        type: "button",
        class: "button button-small",
        "aria-expanded": String(expanded),
        "aria-controls": expanded ? panelId : undefined,
        "data-focus-key": `toggle-${delivery.id}`,
        onclick: () => this.#toggle(delivery),
      },
      "Details",
    );
    const replay = h(
      "button",
      {
        type: "button",
        class: "button button-small",
        "data-focus-key": `replay-${delivery.id}`,
        "aria-label": `Replay ${delivery.type} (${delivery.id})`,
      },
      "Replay",
    );
    replay.addEventListener("click", () => this.#replay(delivery, replay));
    const row = h(
      "tr",
      { "data-id": delivery.id },
      cell("Event", h("span", { class: "mono" }, delivery.type)),
      cell("Created", timeElement(delivery.created_at)),
      cell("Status", chip("delivery", delivery.status, DELIVERY_LABELS[delivery.status] ?? delivery.status)),
      cell("", toggle),
      cell("", replay),
    );
    if (!expanded) return [row];
    const attempts = this.#attempts.get(delivery.id) ?? [];
    const detail = this.#details.get(delivery.id);
    return [
      row,
      h(
        "tr",
        { class: "attempts-row", id: panelId, "data-attempts-for": delivery.id },
        h(
          "td",
          { colspan: 5 },
          detail?.next_attempt_at
            ? h("p", { class: "next-attempt" }, "Next attempt: ", timeElement(detail.next_attempt_at))
            : undefined,
          detail
            ? h(
                "details",
                { class: "payload" },
                h("summary", {}, "Payload"),
                h("pre", { class: "attempt-response" }, JSON.stringify(detail.payload, null, 2)),
              )
            : undefined,
          attempts.length === 0
            ? h("p", { class: "hint" }, "No attempt yet.")
            : h(
                "ol",
                { class: "attempts", "aria-label": `Attempts of ${delivery.type}, newest first` },
                attempts.map(attemptItem),
              ),
        ),
      ),
    ];
  }
}
