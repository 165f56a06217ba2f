import type { DomainRecord, RecordStatus } from "./dns-records.js";

/**
 * The subset of `node:dns/promises` Resolver verification needs: tests and `serve`
 * (`FLAGPOST_DNS_SERVERS`) hand in a Resolver pointed at their own servers.
 */
export interface DnsResolver {
  resolveTxt(hostname: string): Promise<string[][]>;
  resolveMx(hostname: string): Promise<{ exchange: string; priority: number }[]>;
}

export type DomainStatus = "not_started" | "pending" | "verified" | "failed";

/** Answers that say the record is not there; anything else (SERVFAIL, timeout) may pass. */
const ABSENT = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN"]);

const normalise = (value: string): string => value.trim().replace(/\s+/g, " ").replace(/\.$/, "").toLowerCase();

function dkimKey(value: string): string | undefined {
  const tag = value
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith("p="));
  return tag?.slice(2).replace(/\s+/g, "");
}

function matches(record: DomainRecord, answers: string[]): boolean {
  if (record.record === "DKIM") return answers.some((answer) => dkimKey(answer) === dkimKey(record.value));
  if (record.record === "DMARC") return answers.some((answer) => /^v=DMARC1\b/i.test(answer.trim()));
  return answers.some((answer) => normalise(answer) === normalise(record.value));
}

async function answersFor(record: DomainRecord, host: string, resolver: DnsResolver): Promise<string[]> {
  if (record.type === "MX") {
    const mx = await resolver.resolveMx(host);
    return mx.filter((entry) => entry.priority === record.priority).map((entry) => entry.exchange);
  }
  // A TXT record's character-strings form one value (RFC 7208 §3.3, RFC 6376 §3.6.2.2).
  return (await resolver.resolveTxt(host)).map((strings) => strings.join(""));
}

/** Looks one record up and says whether DNS publishes it as asked. */
export async function checkRecord(domain: string, record: DomainRecord, resolver: DnsResolver): Promise<RecordStatus> {
  try {
    const answers = await answersFor(record, `${record.name}.${domain}`, resolver);
    return matches(record, answers) ? "verified" : "failed";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && ABSENT.has(code) ? "failed" : "temporary_failure";
  }
}

/**
 * Checks every record and derives the domain's status: `verified` when each required record
 * (all but the DMARC suggestion) is published, `failed` when one is missing or different, and
 * `pending` when DNS could not answer (a transient error says nothing about the records).
 */
export async function verifyRecords(
  domain: string,
  records: readonly DomainRecord[],
  resolver: DnsResolver,
): Promise<{ status: DomainStatus; records: DomainRecord[] }> {
  const checked = await Promise.all(
    records.map(async (record) => ({ ...record, status: await checkRecord(domain, record, resolver) })),
  );
  const required = checked.filter((record) => record.record !== "DMARC").map((record) => record.status);
  const status: DomainStatus = required.every((s) => s === "verified")
    ? "verified"
    : required.includes("failed")
      ? "failed"
      : "pending";
  return { status, records: checked };
}
