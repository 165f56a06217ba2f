/** Record statuses as the resend SDK types them (`DomainRecordStatus`). */
export type RecordStatus = "not_started" | "pending" | "verified" | "failed" | "temporary_failure";

/** One DNS record to publish, in the resend SDK's shape; `name` is relative to the domain. */
export interface DomainRecord {
  readonly record: "DKIM" | "SPF" | "DMARC";
  readonly name: string;
  readonly type: "TXT" | "MX";
  readonly ttl: string;
  readonly status: RecordStatus;
  readonly value: string;
  readonly priority?: number;
}

export interface RecordPlan {
  /** The domain mail is sent from, e.g. `example.com`. */
  readonly domain: string;
  /** `flagpost<n>`: a new selector per key lets a key be rotated while the old one still verifies. */
  readonly selector: string;
  readonly publicKeyBase64: string;
  /** Return-path label under the domain (`bounces` unless the domain was created with another). */
  readonly returnPath: string;
  /** Host that receives bounces for the return path (flagpost's inbound MTA). */
  readonly bounceMailHost: string;
  /** SPF mechanisms authorising the sending hosts, e.g. `ip4:192.0.2.1` or `include:…`. */
  readonly spfMechanisms: string;
}

/** DNS caps each TXT character-string at 255 octets (RFC 1035 §3.3.14); longer values are split. */
export function splitTxt(value: string): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < value.length; at += 255) chunks.push(value.slice(at, at + 255));
  return chunks;
}

/**
 * The records a domain must publish, in the order Resend lists them: DKIM, then the return-path's
 * MX and SPF (SPF is checked against the envelope sender, which VERP puts on the return-path host,
 * so SPF lives there, not on the apex), then a DMARC suggestion. DMARC is advice: a domain
 * verifies without it, since the owner may already publish a policy of their own.
 */
export function recordsFor(plan: RecordPlan, status: RecordStatus = "not_started"): DomainRecord[] {
  return [
    {
      record: "DKIM",
      name: `${plan.selector}._domainkey`,
      type: "TXT",
      ttl: "Auto",
      status,
      value: `v=DKIM1; k=rsa; p=${plan.publicKeyBase64}`,
    },
    {
      record: "SPF",
      name: plan.returnPath,
      type: "MX",
      ttl: "Auto",
      status,
      value: plan.bounceMailHost,
      priority: 10,
    },
    {
      record: "SPF",
      name: plan.returnPath,
      type: "TXT",
      ttl: "Auto",
      status,
      value: `v=spf1 ${plan.spfMechanisms} ~all`,
    },
    {
      record: "DMARC",
      name: "_dmarc",
      type: "TXT",
      ttl: "Auto",
      status,
      value: `v=DMARC1; p=none; adkim=r; aspf=r;`,
    },
  ];
}
