import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDkimKey } from "../../src/domains/dkim-key.js";
import { recordsFor, splitTxt, type DomainRecord } from "../../src/domains/dns-records.js";
import { verifyRecords } from "../../src/domains/dns-verification.js";
import { startTestDns } from "./support/test-dns.js";

let dns: Awaited<ReturnType<typeof startTestDns>>;
let records: DomainRecord[];

function publish(zone: typeof dns.zone, all: readonly DomainRecord[]): void {
  for (const record of all) {
    const host = `${record.name}.example.test`;
    if (record.type === "MX") zone.mx.set(host, [{ exchange: record.value, priority: record.priority ?? 10 }]);
    else zone.txt.set(host, [splitTxt(record.value)]);
  }
}

beforeAll(async () => {
  dns = await startTestDns();
  const key = await generateDkimKey();
  records = recordsFor({
    domain: "example.test",
    selector: "flagpost1",
    publicKeyBase64: key.publicKeyBase64,
    returnPath: "bounces",
    bounceMailHost: "mx.flagpost.test",
    spfMechanisms: "ip4:127.0.0.1",
  });
});
afterAll(() => dns.close());

describe("domain verification through a DNS server on 127.0.0.1", () => {
  it("verifies when every record is published (the DKIM TXT split into 255-octet strings)", async () => {
    publish(dns.zone, records);
    expect(dns.zone.txt.get("flagpost1._domainkey.example.test")?.[0]?.length).toBeGreaterThan(1);
    const result = await verifyRecords("example.test", records, dns.resolver);
    expect(result.status).toBe("verified");
    expect(result.records.map((record) => record.status)).toEqual(["verified", "verified", "verified", "verified"]);
  });

  it("fails when the DKIM record is missing, and names that record", async () => {
    publish(dns.zone, records);
    dns.zone.txt.delete("flagpost1._domainkey.example.test");
    const result = await verifyRecords("example.test", records, dns.resolver);
    expect(result.status).toBe("failed");
    expect(result.records.map((record) => record.status)).toEqual(["failed", "verified", "verified", "verified"]);
  });

  it("fails when the SPF record authorises other hosts, or the MX points elsewhere", async () => {
    publish(dns.zone, records);
    dns.zone.txt.set("bounces.example.test", [["v=spf1 ip4:192.0.2.1 ~all"]]);
    expect((await verifyRecords("example.test", records, dns.resolver)).status).toBe("failed");
    publish(dns.zone, records);
    dns.zone.mx.set("bounces.example.test", [{ exchange: "mx.elsewhere.test", priority: 10 }]);
    expect((await verifyRecords("example.test", records, dns.resolver)).status).toBe("failed");
  });

  it("still verifies without the DMARC suggestion", async () => {
    publish(dns.zone, records);
    dns.zone.txt.delete("_dmarc.example.test");
    const result = await verifyRecords("example.test", records, dns.resolver);
    expect(result.status).toBe("verified");
    expect(result.records[3]?.status).toBe("failed");
  });

  it("stays pending when DNS cannot answer (no server listening)", async () => {
    const { Resolver } = await import("node:dns/promises");
    const silent = new Resolver({ timeout: 200, tries: 1 });
    silent.setServers(["127.0.0.1:9"]);
    const result = await verifyRecords("example.test", records, silent);
    expect(result.status).toBe("pending");
  });
});
