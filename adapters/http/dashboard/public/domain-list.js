// The Domains page (#/domains): the sending domains of GET /v1/domains with their verification
// status, whether the reputation guard holds their mail, and their bounce and complaint rates,
// and a form that adds one (POST /v1/domains). A domain's records, Verify, Resume and Delete are
// on its own page (domain-view.js). Every domain route needs full_access (docs/domains.md).

import { domainApi } from "./domain-api.js";
import { pausedChip, rateText, statusChip } from "./domain-status.js";
import { h, show, timeElement } from "./dom.js";
import { cell, emptyPanel, fieldError, openScoped, Page, pageSection, scopeNote, showScopeNote } from "./page-kit.js";
import { PagedList } from "./paged-list.js";

export const NO_DOMAIN_SCOPE =
  "This key cannot manage sending domains: every domain route needs the full_access scope. Use a full_access key to see this page.";

// The list route carries no rates, so each domain shown is asked for (GET /v1/domains/{id}), at
// most this many at once; a domain whose answer fails shows "—" instead of its rates.
const IN_FLIGHT = 4;

async function withReputation(domains) {
  const result = domains.map((domain) => ({ ...domain }));
  let next = 0;
  const worker = async () => {
    while (next < result.length) {
      const item = result[next++];
      try {
        item.reputation = (await domainApi.get(item.id)).reputation;
      } catch {
        item.reputation = undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, result.length) }, worker));
  return result;
}

function textField(id, label, attrs, hint) {
  const input = h("input", {
    id,
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": `${id}-error ${id}-help`,
    ...attrs,
  });
  const error = h("p", { id: `${id}-error`, class: "field-error", hidden: true });
  const field = h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    error,
    h("p", { id: `${id}-help`, class: "hint" }, hint),
  );
  return { field, input, error };
}

/**
 * Moves to `hash` and then says `message`: app.js clears the status line on every hashchange, so
 * the message goes in after that (this listener runs after app.js's).
 */
export function goTo(hash, message, onStatus) {
  // Already there: no hashchange would come, and the listener would wait for a later one.
  if (location.hash === hash) return onStatus(message);
  window.addEventListener("hashchange", () => onStatus(message), { once: true });
  location.hash = hash;
}

export class DomainList extends Page {
  #list;
  #ui;

  constructor({ onError, onStatus }) {
    super({ onError, onStatus });
    const name = textField(
      "domain-name",
      "Domain",
      { placeholder: "example.com", inputmode: "url" },
      "The domain your From addresses use. flagpost answers the DNS records to publish there.",
    );
    const returnPath = textField(
      "domain-return-path",
      "Return path (optional)",
      { placeholder: "bounces" },
      "The label under the domain that receives bounces; bounces when left empty.",
    );
    const form = h(
      "form",
      { class: "panel stack domain-form", novalidate: true, hidden: true, onsubmit: (e) => this.#create(e) },
      h("h2", {}, "Add domain"),
      name.field,
      returnPath.field,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "button button-primary" }, "Add domain")),
    );
    const list = new PagedList({
      label: "Sending domains",
      columns: ["Domain", "Status", "Sending", "Bounce rate", "Complaint rate", "Created"],
      moreText: "Load more domains",
      loadingText: "Loading domains…",
      empty: emptyPanel(
        "No domains yet",
        "Add the domain you send from: once its DNS records are published and verified, its mail is DKIM-signed.",
      ),
      fetchPage: async (page) => {
        const answer = await domainApi.list(page);
        return { ...answer, data: await withReputation(answer.data) };
      },
      rows: (domain) => this.#row(domain),
      onError,
    });
    this.#list = list;
    const note = scopeNote();
    const { section, heading } = pageSection("domains-view", "Domains", {}, note, ...list.parts, form);
    this.#ui = { section, heading, note, form, name, returnPath };
  }

  open() {
    const load = async () => {
      show(this.#ui.form, true);
      await this.#list.load();
    };
    return openScoped(this.#ui, "full_access", { load, denied: () => this.#denied(), onError: this.onError });
  }

  #denied() {
    show(this.#ui.form, false);
    this.#list.hide();
    showScopeNote(this.#ui.note, NO_DOMAIN_SCOPE);
  }

  async #create(event) {
    event.preventDefault();
    const { form, name, returnPath } = this.#ui;
    for (const field of [name, returnPath]) {
      show(field.error, false);
      field.input.removeAttribute("aria-invalid");
    }
    const domain = { name: name.input.value.trim() };
    if (domain.name === "") return fieldError(name.error, name.input, "Type the domain you send from.");
    if (returnPath.input.value.trim() !== "") domain.custom_return_path = returnPath.input.value.trim();
    const button = form.querySelector('[type="submit"]');
    button.disabled = true;
    try {
      const created = await domainApi.create(domain);
      name.input.value = "";
      returnPath.input.value = "";
      goTo(
        `#/domains/${encodeURIComponent(created.id)}`,
        `Added ${created.name}: publish its DNS records, then verify it.`,
        this.onStatus,
      );
    } catch (error) {
      // The server's words (zod's, or "already exists") under the field they name.
      if (error.code === "validation_error" && /custom_return_path/.test(error.message))
        fieldError(returnPath.error, returnPath.input, error.message);
      else if (error.code === "validation_error" || error.code === "conflict")
        fieldError(name.error, name.input, error.message);
      else this.onError(error);
    } finally {
      button.disabled = false;
    }
  }

  #row(domain) {
    const rates = domain.reputation;
    const noRate = () => h("span", { class: "muted" }, "—");
    return h(
      "tr",
      { "data-id": domain.id },
      cell("Domain", h("a", { class: "mono", href: `#/domains/${encodeURIComponent(domain.id)}` }, domain.name)),
      cell("Status", statusChip("domain", domain.status)),
      cell("Sending", pausedChip(domain)),
      cell("Bounce rate", rates ? rateText(rates, "bounce") : noRate()),
      cell("Complaint rate", rates ? rateText(rates, "complaint") : noRate()),
      cell("Created", timeElement(domain.created_at)),
    );
  }
}
