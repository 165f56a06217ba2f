// One sending domain (#/domains/{id}): its status, the DNS records to publish (each copyable),
// Verify (POST …/verify looks them up before answering, so the status shown next is the result),
// its bounce and complaint rates over the reputation window, Resume while the guard holds its
// mail (POST …/resume), and Delete after a dialog.

import { domainApi } from "./domain-api.js";
import { goTo, NO_DOMAIN_SCOPE } from "./domain-list.js";
import { recordsTable } from "./domain-records.js";
import { formatRate, pausedChip, rateText, statusChip } from "./domain-status.js";
import { h, show, timeElement } from "./dom.js";
import {
  actWith,
  confirmThenAct,
  openScoped,
  Page,
  pageSection,
  scopeNote,
  showMissing,
  showScopeNote,
} from "./page-kit.js";

// What Verify's answer means, said after the status chip.
const VERIFY_OUTCOME = {
  verified: "is verified: its mail is DKIM-signed from now on.",
  failed: "failed verification: a record below is missing or different (see each record's status).",
  pending: "is still pending: DNS did not answer. Verify again in a moment.",
};

const term = (title, ...value) => [h("dt", {}, title), h("dd", {}, ...value)];

export class DomainView extends Page {
  #id;
  #domain;
  #ui;

  constructor({ onError, onStatus }) {
    super({ onError, onStatus });
    const verify = h("button", { type: "button", class: "button button-primary" }, "Verify");
    verify.addEventListener("click", () => this.#verify(verify));
    const remove = h("button", { type: "button", class: "button button-danger" }, "Delete");
    remove.addEventListener("click", () => this.#delete(remove));
    const paused = h("div", { class: "notice notice-error stack domain-paused", role: "region", hidden: true });
    const summary = h("dl", { class: "panel meta domain-summary", hidden: true });
    const records = h("section", { class: "stack domain-records", "aria-labelledby": "domain-records-title" });
    const reputation = h("section", { class: "panel stack domain-reputation", "aria-labelledby": "reputation-title" });
    const note = scopeNote();
    const missing = h("div", { class: "panel", hidden: true });
    const loading = h("p", { class: "hint", hidden: true }, "Loading domain…");
    const { section, heading } = pageSection(
      "domain-view",
      "Domain",
      { crumb: { href: "#/domains", text: "← All domains" }, actions: [verify, remove] },
      note,
      loading,
      missing,
      paused,
      summary,
      records,
      reputation,
    );
    this.#ui = { section, heading, verify, remove, paused, summary, records, reputation, note, missing, loading };
  }

  async open(id) {
    const ui = this.#ui;
    this.#id = id;
    this.#domain = undefined;
    ui.heading.textContent = "Domain";
    this.#showParts(false);
    show(ui.missing, false);
    return openScoped(ui, "full_access", {
      load: async () => {
        const domain = await domainApi.get(id);
        if (this.#id === id) this.#render(domain);
      },
      denied: () => showScopeNote(ui.note, NO_DOMAIN_SCOPE),
      notFound: () => showMissing(ui, "Domain not found", `No sending domain has the id ${id}.`),
      loading: ui.loading,
      onError: this.onError,
    });
  }

  #showParts(visible) {
    const ui = this.#ui;
    for (const el of [ui.verify, ui.remove, ui.summary, ui.records, ui.reputation]) show(el, visible);
    show(ui.paused, visible && Boolean(this.#domain?.paused));
  }

  #render(domain) {
    this.#domain = domain;
    const ui = this.#ui;
    ui.heading.textContent = domain.name;
    ui.summary.replaceChildren(
      ...term("Status", statusChip("domain", domain.status)),
      ...term("Sending", pausedChip(domain)),
      ...term("Region", domain.region),
      ...term("DKIM selector", h("code", {}, domain.dkim_selector)),
      ...term("Last checked", domain.last_checked_at ? timeElement(domain.last_checked_at) : "Never"),
      ...term("Created", timeElement(domain.created_at)),
    );
    ui.records.replaceChildren(
      h("h2", { id: "domain-records-title" }, "DNS records"),
      h(
        "p",
        { class: "hint" },
        `Publish these at ${domain.name}'s DNS provider, then Verify. Names are relative to ${domain.name}; `,
        "DMARC is a suggestion and not needed to verify.",
      ),
      recordsTable(domain, this.onStatus),
    );
    this.#renderReputation(domain);
    this.#renderPaused(domain);
    this.#showParts(true);
  }

  #renderReputation({ reputation: r }) {
    this.#ui.reputation.replaceChildren(
      h("h2", { id: "reputation-title" }, "Reputation"),
      h(
        "p",
        { class: "hint" },
        `Over the last ${r.sends} of at most ${r.window} sends. The reputation guard pauses the domain when `,
        `its Permanent bounce rate goes above ${formatRate(r.bounce_threshold)} or its complaint rate above `,
        `${formatRate(r.complaint_threshold)}, counted against the whole window.`,
      ),
      h(
        "dl",
        { class: "meta domain-rates" },
        ...term("Bounce rate", rateText(r, "bounce")),
        ...term("Complaint rate", rateText(r, "complaint")),
        ...term("Sends counted", String(r.sends)),
      ),
    );
  }

  #renderPaused(domain) {
    const resume = h("button", { type: "button", class: "button button-primary" }, "Resume");
    resume.addEventListener("click", () => this.#resume(resume));
    this.#ui.paused.replaceChildren(
      h("h2", {}, "Paused by the reputation guard"),
      h(
        "p",
        {},
        "Since ",
        domain.paused_at ? timeElement(domain.paused_at) : "now",
        ` new mail from ${domain.name} waits, queued. Resume once the cause is fixed: the held mail is then sent in due order.`,
      ),
      h("div", { class: "actions" }, resume),
    );
  }

  #verify(button) {
    const domain = this.#domain;
    return actWith(
      button,
      async () => {
        this.onStatus(`Looking up the records of ${domain.name}…`);
        await domainApi.verify(domain.id);
        const checked = await domainApi.get(domain.id);
        if (this.#id !== domain.id) return;
        this.#render(checked);
        button.disabled = false;
        this.onStatus(`${checked.name} ${VERIFY_OUTCOME[checked.status] ?? `is ${checked.status}.`}`);
      },
      (error) => {
        this.onStatus("");
        this.onError(error);
      },
    );
  }

  #resume(button) {
    const domain = this.#domain;
    return actWith(
      button,
      async () => {
        const resumed = await domainApi.resume(domain.id);
        if (this.#id !== domain.id) return;
        this.#render(resumed);
        this.onStatus(`Resumed ${resumed.name}: its held mail is sent in due order.`);
        this.#ui.heading.focus();
      },
      this.onError,
    );
  }

  #delete(button) {
    const domain = this.#domain;
    const question = {
      title: "Delete this domain?",
      text: `Mail from ${domain.name} is no longer DKIM-signed, and its key is deleted: adding it again makes a new key and records to publish.`,
      confirm: "Delete",
    };
    return confirmThenAct(
      button,
      question,
      async () => {
        await domainApi.remove(domain.id);
        button.disabled = false;
        goTo("#/domains", `Deleted the domain ${domain.name}.`, this.onStatus);
      },
      this.onError,
    );
  }
}
