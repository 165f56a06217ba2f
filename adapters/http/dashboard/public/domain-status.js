// How the Domains pages write a domain's state: its verification status, whether the reputation
// guard holds its mail, and its bounce and complaint rates. Chips say the state in words; the
// tooltip keeps the API's.

import { h } from "./dom.js";
import { chip } from "./page-kit.js";

// A domain's and a record's `status` (src/ports/storage/domains.ts).
const STATUS_LABELS = {
  not_started: "Not started",
  pending: "Pending",
  verified: "Verified",
  failed: "Failed",
  temporary_failure: "DNS did not answer",
};

export const statusChip = (kind, status) => chip(kind, status, STATUS_LABELS[status] ?? status, `status: ${status}`);

/** Paused (the guard holds new mail) or Sending. */
export const pausedChip = (domain) =>
  domain.paused
    ? chip("paused", "paused", "Paused", "paused: true · resume it on its page")
    : chip("paused", "sending", "Sending", "paused: false");

const percent = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 2 });

/** A fraction (0.053) as a percentage ("5.3%"). */
export const formatRate = (fraction) => percent.format(fraction);

/**
 * One rate of `reputation` (GET /v1/domains/{id}) with its threshold. The guard pauses a domain
 * when the count behind the rate exceeds the threshold times the whole window, even while fewer
 * sends than the window are counted (docs/domains.md): that is when a rate is marked as above,
 * in words and with data-over for the colour.
 */
export function rateText(reputation, which) {
  const { sends, window } = reputation;
  const rate = reputation[`${which}_rate`];
  const threshold = reputation[`${which}_threshold`];
  const over = rate * sends > threshold * window;
  return h(
    "span",
    { class: over ? "rate rate-over" : "rate", "data-rate": String(rate), "data-over": String(over) },
    formatRate(rate),
    h(
      "span",
      { class: "muted" },
      over ? ` · above the ${formatRate(threshold)} limit` : ` · limit ${formatRate(threshold)}`,
    ),
  );
}
