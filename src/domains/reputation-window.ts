import { asciiDomain, parseAddress } from "../emails/addresses.js";
import { FlagpostError } from "../errors.js";
import type { DomainReputationCounts, EmailContent } from "../ports/storage/index.js";

/** The reputation guard's settings (docs/domains.md, "Reputation guard"). */
export interface ReputationOptions {
  /** How many of a domain's last sends the rates are computed over. Default 1,000. */
  window?: number;
  /** The Permanent bounce rate above which the domain is paused. Default 0.05 (5%). */
  bounceRate?: number;
  /** The complaint rate above which the domain is paused. Default 0.001 (0.1%). */
  complaintRate?: number;
}

export type ReputationSettings = Required<ReputationOptions>;

export const DEFAULT_REPUTATION: ReputationSettings = { window: 1000, bounceRate: 0.05, complaintRate: 0.001 };

/** The options with their defaults, checked: a window of 1 to 100,000 sends, rates from 0 to 1. */
export function reputationSettings(options: ReputationOptions = {}): ReputationSettings {
  const settings = { ...DEFAULT_REPUTATION, ...withoutUndefined(options) };
  if (!Number.isInteger(settings.window) || settings.window < 1 || settings.window > 100_000)
    throw new FlagpostError("validation_error", "domains.reputation.window must be a whole number from 1 to 100000");
  for (const key of ["bounceRate", "complaintRate"] as const)
    if (!(settings[key] >= 0 && settings[key] <= 1))
      throw new FlagpostError("validation_error", `domains.reputation.${key} must be from 0 to 1`);
  return settings;
}

function withoutUndefined(options: ReputationOptions): ReputationOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/**
 * The domain an email is sent from, as storage keys it: the `from` address's domain, lower-cased
 * ASCII; undefined when `from` is not an address (never for a stored email).
 */
export function sendingDomainOf(content: Pick<EmailContent, "from">): string | undefined {
  const parsed = parseAddress(content.from);
  return parsed && asciiDomain(parsed.address);
}

/** What GET /v1/domains/{id} shows of the window: rates over the sends it holds (0 with none). */
export interface ReputationView {
  sends: number;
  bounce_rate: number;
  complaint_rate: number;
}

export function reputationView(counts: DomainReputationCounts): ReputationView {
  const rate = (n: number) => (counts.sends === 0 ? 0 : n / counts.sends);
  return { sends: counts.sends, bounce_rate: rate(counts.bounces), complaint_rate: rate(counts.complaints) };
}

/**
 * Whether the counts pause the domain: more bounces (or complaints) than the rate allows of a full
 * window. A domain with fewer sends than the window is judged against the full window's count, so
 * its first send bouncing does not pause it (1 of 1 is 100%), yet 51 Permanent bounces pause it
 * whatever else it sent, as they would once the window fills.
 */
export function exceedsThresholds(counts: DomainReputationCounts, settings: ReputationSettings): boolean {
  const allowed = (rate: number) => rate * Math.max(settings.window, counts.sends);
  return counts.bounces > allowed(settings.bounceRate) || counts.complaints > allowed(settings.complaintRate);
}
