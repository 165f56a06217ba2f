// The Overview page (#/overview): GET /v1/overview (emails:read) as cards — the outbox, sends,
// bounces and complaints per hour over the last day, events per minute over the last hour,
// failing webhook endpoints and this process's storage errors — each linking to the page that
// tells more. Charts are plain SVG (overview-chart.js).

import { request } from "./api.js";
import { h, show, timeElement } from "./dom.js";
import { barChart } from "./overview-chart.js";
import { openScoped, pageSection, scopeNote, showScopeNote } from "./page-kit.js";

const NO_SCOPE =
  "This key cannot read the overview: it lacks the emails:read scope. Use a key with emails:read (or full_access) to see this page.";

const number = new Intl.NumberFormat();
const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const time = (iso) => clock.format(new Date(iso));

/** 1500 → "25 min": how long the oldest due email has waited. */
function formatAge(seconds) {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** The readiness probe beside /v1 (GET /ready, no key), wherever the app mounted flagpost. */
function readyHref() {
  const base = document.querySelector('meta[name="flagpost-api-base"]').content;
  return new URL(`${base}/../ready`, document.baseURI).href;
}

function card(kind, title, link, ...body) {
  return h(
    "section",
    { class: "panel overview-card", "data-card": kind, "aria-labelledby": `overview-${kind}-title` },
    h("h2", { id: `overview-${kind}-title` }, title),
    ...body,
    h("p", { class: "overview-link" }, h("a", { href: link.href, "data-link": kind }, link.text)),
  );
}

const value = (n, unit) =>
  h(
    "p",
    { class: "overview-value" },
    h("span", { class: "overview-number" }, number.format(n)),
    unit ? ` ${unit}` : "",
  );

/** A chart with its time axis under it: how long ago its first slot began, and "now" at the end. */
function chartFigure(slots, options, since) {
  return h(
    "div",
    { class: "overview-chart" },
    barChart(slots, options),
    h("p", { class: "overview-axis", "aria-hidden": "true" }, h("span", {}, since), h("span", {}, "now")),
  );
}

function hourCard(kind, title, hours, field, total, link) {
  const slots = hours.map((hour) => ({ at: hour.hour, count: hour[field] }));
  const noun = title.toLowerCase();
  return card(
    kind,
    title,
    link,
    value(total),
    h("p", { class: "hint" }, "Last 24 hours, per hour"),
    chartFigure(
      slots,
      {
        kind,
        label: `${title} per hour over the last 24 hours: ${number.format(total)} in all`,
        name: (slot) => `${time(slot.at)}: ${number.format(slot.count)} ${noun}`,
      },
      "24 h ago",
    ),
  );
}

function outboxCard(outbox) {
  const link = { href: "#/emails", text: "Emails" };
  if (!outbox)
    return card("outbox", "Outbox", link, h("p", { class: "hint" }, "This storage cannot count its outbox."));
  return card(
    "outbox",
    "Outbox",
    link,
    value(outbox.due, "due"),
    h("p", { class: "hint", "data-field": "scheduled" }, `${number.format(outbox.scheduled)} scheduled for later`),
    h(
      "p",
      { class: "hint", "data-field": "oldest" },
      outbox.due === 0 ? "Nothing is waiting." : `Oldest waiting ${formatAge(outbox.oldestDueAgeSeconds)}`,
    ),
  );
}

function webhookCard(webhooks) {
  const list = h(
    "ul",
    { class: "plain-list overview-failing" },
    webhooks.failing.map((w) =>
      h(
        "li",
        { "data-id": w.id },
        h("a", { href: `#/webhooks/${encodeURIComponent(w.id)}` }, w.endpoint ?? w.id),
        h(
          "span",
          { class: "hint" },
          " failing since ",
          timeElement(w.failingSince),
          w.status === "disabled" ? " (disabled)" : "",
        ),
      ),
    ),
  );
  return card(
    "webhooks",
    "Failing webhooks",
    { href: "#/webhooks", text: "Webhooks" },
    value(webhooks.failing.length, webhooks.failingMore ? "or more" : ""),
    webhooks.failing.length === 0 ? h("p", { class: "hint" }, "Every endpoint is delivering.") : list,
  );
}

function storageCard(errors) {
  const parts = Object.entries(errors.byRepository).map(([repository, n]) => `${repository}: ${number.format(n)}`);
  return card(
    "storage",
    "Storage errors",
    { href: readyHref(), text: "Readiness check" },
    value(errors.total),
    h("p", { class: "hint" }, "Failed storage calls of this server process since it started"),
    parts.length > 0 ? h("p", { "data-field": "repositories" }, parts.join(" · ")) : undefined,
  );
}

export class OverviewPage {
  #onError;
  #ui;

  constructor({ onError }) {
    this.#onError = onError;
    const refresh = h("button", { type: "button", class: "button", onclick: () => this.open() }, "Refresh");
    const note = scopeNote();
    const asOf = h("p", { class: "hint overview-as-of", hidden: true });
    const loading = h("p", { class: "hint", hidden: true }, "Loading the overview…");
    const grid = h("div", { class: "overview-grid", hidden: true });
    const { section, heading } = pageSection(
      "overview-view",
      "Overview",
      { actions: [refresh] },
      note,
      asOf,
      loading,
      grid,
    );
    this.#ui = { section, heading, note, refresh, asOf, loading, grid };
  }

  open() {
    const ui = this.#ui;
    const load = async () => {
      show(ui.loading, true);
      try {
        this.#render((await request("GET", "/overview")).data);
      } finally {
        show(ui.loading, false);
      }
    };
    const denied = () => {
      for (const part of [ui.grid, ui.asOf, ui.refresh]) show(part, false);
      showScopeNote(ui.note, NO_SCOPE);
    };
    return openScoped(ui, "emails:read", { load, denied, onError: this.#onError });
  }

  #render(overview) {
    const ui = this.#ui;
    const { emails, events } = overview;
    const suppressions = { href: "#/suppressions", text: "Suppressions" };
    ui.asOf.replaceChildren("As of ", timeElement(overview.at));
    ui.grid.replaceChildren(
      outboxCard(overview.outbox),
      hourCard("sent", "Sent", emails.hours, "sent", emails.totals.sent, { href: "#/emails", text: "Emails" }),
      hourCard("bounced", "Bounces", emails.hours, "bounced", emails.totals.bounced, suppressions),
      hourCard("complained", "Complaints", emails.hours, "complained", emails.totals.complained, suppressions),
      card(
        "events",
        "Events",
        { href: "#/experiments", text: "Experiments" },
        value(events.total),
        h("p", { class: "hint" }, "Last 60 minutes, per minute"),
        chartFigure(
          events.minutes.map((minute) => ({ at: minute.minute, count: minute.events })),
          {
            kind: "events",
            label: `Events per minute over the last hour: ${number.format(events.total)} in all`,
            name: (slot) => `${time(slot.at)}: ${number.format(slot.count)} events`,
          },
          "60 min ago",
        ),
      ),
      webhookCard(overview.webhooks),
      storageCard(overview.storageErrors),
    );
    for (const part of [ui.grid, ui.asOf, ui.refresh]) show(part, true);
  }
}
