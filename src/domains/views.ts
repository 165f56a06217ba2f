import type { SendingDomainDnsRecord, SendingDomainRecord } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import type { ReputationSettings, ReputationView } from "./reputation-window.js";

/**
 * What callers see of a domain, shaped as the resend SDK's `Domain` and
 * `GetDomainResponseSuccess`: snake_case; sending is the only capability flagpost has.
 */
export interface DomainSummaryView {
  id: string;
  name: string;
  status: SendingDomainRecord["status"];
  created_at: string;
  region: string;
  capabilities: { sending: "enabled"; receiving: "disabled" };
  open_tracking: boolean;
  click_tracking: boolean;
  /** flagpost's addition: whether the reputation guard holds the domain's mail. */
  paused: boolean;
}

export interface DomainView extends DomainSummaryView {
  object: "domain";
  records: SendingDomainDnsRecord[];
  /** flagpost's additions: the DKIM selector, TLS policy and when DNS was last asked. */
  dkim_selector: string;
  tls: "opportunistic" | "enforced";
  last_checked_at: string | null;
  /** When the reputation guard paused the domain; null while it sends. */
  paused_at: string | null;
  /** The rates over the domain's last `window` sends, and the thresholds that pause it. */
  reputation: ReputationView & { window: number; bounce_threshold: number; complaint_threshold: number };
}

export function summaryView(d: SendingDomainRecord): DomainSummaryView {
  return {
    id: d.id,
    name: d.name,
    status: d.status,
    created_at: isoFromMs(d.createdAt),
    region: d.region,
    capabilities: { sending: "enabled", receiving: "disabled" },
    open_tracking: d.openTracking,
    click_tracking: d.clickTracking,
    paused: d.pausedAt !== undefined,
  };
}

export function domainView(d: SendingDomainRecord, rates: ReputationView, settings: ReputationSettings): DomainView {
  return {
    object: "domain",
    ...summaryView(d),
    records: d.records.map((r) => ({ ...r })),
    dkim_selector: d.selector,
    tls: d.tls,
    last_checked_at: d.checkedAt === undefined ? null : isoFromMs(d.checkedAt),
    paused_at: d.pausedAt === undefined ? null : isoFromMs(d.pausedAt),
    reputation: {
      window: settings.window,
      ...rates,
      bounce_threshold: settings.bounceRate,
      complaint_threshold: settings.complaintRate,
    },
  };
}
