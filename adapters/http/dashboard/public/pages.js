// The pages beside the flag pages, and the navigation between all of them. app.js asks
// `pageFor(hash)` first; a page found here is shown by app.js's showView and opened here.
//   #/overview          outbox, sends, events, failures (emails:read)
//   #/experiments       every flag with variants        (flags:read)
//   #/emails            the email list                  (emails:read)
//   #/emails/{id}       one email and its timeline      (emails:read)
//   #/suppressions      the suppression list            (emails:read; changes emails:send)
//   #/webhooks          webhook endpoints               (full_access)
//   #/webhooks/{id}     an endpoint's deliveries        (full_access)
//   #/domains           sending domains                 (full_access)
//   #/domains/{id}      a domain's records and rates    (full_access)

import { EmailList } from "./email-list.js";
import { EmailView } from "./email-view.js";
import { ExperimentList } from "./experiment-list.js";
import { OverviewPage } from "./overview.js";
import { Suppressions } from "./suppressions.js";
import { WebhookList } from "./webhook-list.js";
import { WebhookView } from "./webhook-view.js";
import { DomainList } from "./domain-list.js";
import { DomainView } from "./domain-view.js";

export const PAGE_VIEWS = [
  "#overview-view",
  "#experiments-view",
  "#emails-view",
  "#email-view",
  "#suppressions-view",
  "#webhooks-view",
  "#webhook-view",
  "#domains-view",
  "#domain-view",
];

function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Builds the pages (their sections go into <main>, hidden). `handlers`: onError, onStatus. */
export function createPages(handlers) {
  const overview = new OverviewPage(handlers);
  const experiments = new ExperimentList(handlers);
  const emails = new EmailList(handlers);
  const email = new EmailView(handlers);
  const suppressions = new Suppressions(handlers);
  const webhooks = new WebhookList(handlers);
  const webhook = new WebhookView(handlers);
  const domains = new DomainList(handlers);
  const domain = new DomainView(handlers);
  const one = (prefix) => (hash) =>
    hash.startsWith(prefix) && hash.length > prefix.length ? decode(hash.slice(prefix.length)) : undefined;
  const emailId = one("/emails/");
  const webhookId = one("/webhooks/");
  const domainId = one("/domains/");
  return {
    /** `{view, open()}` for a hash path (without `#` and query) this module serves. */
    pageFor(hash) {
      if (hash === "/overview") return { view: "#overview-view", open: () => overview.open() };
      if (hash === "/experiments") return { view: "#experiments-view", open: () => experiments.open() };
      if (hash === "/emails") return { view: "#emails-view", open: () => emails.open() };
      if (emailId(hash)) return { view: "#email-view", open: () => email.open(emailId(hash)) };
      if (hash === "/suppressions") return { view: "#suppressions-view", open: () => suppressions.open() };
      if (hash === "/webhooks") return { view: "#webhooks-view", open: () => webhooks.open() };
      if (webhookId(hash)) return { view: "#webhook-view", open: () => webhook.open(webhookId(hash)) };
      if (hash === "/domains") return { view: "#domains-view", open: () => domains.open() };
      if (domainId(hash)) return { view: "#domain-view", open: () => domain.open(domainId(hash)) };
      return undefined;
    },
  };
}

/** Marks the navigation link of the section `hash` belongs to as the current page. */
export function markNav(hash) {
  const section = /^\/flags\/[^/]+\/experiment$/.test(hash)
    ? "experiments"
    : (["overview", "experiments", "emails", "suppressions", "webhooks", "domains"].find(
        (s) => hash === `/${s}` || hash.startsWith(`/${s}/`),
      ) ?? "flags");
  for (const link of document.querySelectorAll("#main-nav a")) {
    if (link.dataset.section === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}
