import { Resend } from "resend";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import { splitTxt } from "../../src/domains/dns-records.js";
import { startApp, type TestApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { startTestDns } from "./support/test-dns.js";

let dns: Awaited<ReturnType<typeof startTestDns>>;
beforeAll(async () => (dns = await startTestDns()));
afterAll(() => dns.close());

/**
 * Issue 28: the resend SDK's `domains` resource against flagpost over HTTP, on every storage,
 * verified through a DNS server on 127.0.0.1 that the test publishes the answered records on.
 */
describeEachStorage("the resend SDK's domains against flagpost", (storage: () => Storage) => {
  let app: TestApp;
  let resend: Resend;

  beforeEach(async () => {
    app = await startApp({
      storage: storage(),
      secretKey: "domains-test-secret",
      domains: { resolver: dns.resolver, mxHost: "mx.flagpost.test", spf: "ip4:127.0.0.1", autoStart: false },
    });
    resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
  });
  afterEach(() => app.close());

  it("creates, lists, gets, updates, verifies once published, and removes", async () => {
    const name = `d${Date.now()}.example.test`;
    const created = await resend.domains.create({ name, customReturnPath: "mail" });
    expect(created.error).toBeNull();
    const id = created.data!.id;
    expect(created.data).toMatchObject({ object: "domain", name, status: "not_started", region: "us-east-1" });
    const records = created.data!.records;
    expect(records.map((r) => [r.record, r.type, r.name])).toEqual([
      ["DKIM", "TXT", expect.stringMatching(/^flagpost\d+\._domainkey$/)],
      ["SPF", "MX", "mail"],
      ["SPF", "TXT", "mail"],
      ["DMARC", "TXT", "_dmarc"],
    ]);
    expect(records[2]!.value).toBe("v=spf1 ip4:127.0.0.1 ~all");

    expect((await resend.domains.list()).data?.data.map((d) => d.id)).toContain(id);
    expect((await resend.domains.update({ id, openTracking: true, tls: "enforced" })).data).toEqual({
      object: "domain",
      id,
    });
    expect((await resend.domains.get(id)).data).toMatchObject({ open_tracking: true, tls: "enforced" });

    // Nothing published yet: the check fails.
    await resend.domains.verify(id);
    expect((await resend.domains.get(id)).data?.status).toBe("failed");

    for (const r of records) {
      const host = `${r.name}.${name}`;
      if (r.type === "MX") dns.zone.mx.set(host, [{ exchange: r.value, priority: r.priority ?? 10 }]);
      else dns.zone.txt.set(host, [splitTxt(r.value)]);
    }
    expect((await resend.domains.verify(id)).data).toEqual({ object: "domain", id });
    const verified = await resend.domains.get(id);
    expect(verified.data?.status).toBe("verified");
    expect(verified.data?.records.every((r) => r.status === "verified")).toBe(true);

    // The recheck notices a record taken away.
    dns.zone.txt.delete(`${records[0]!.name}.${name}`);
    expect(await app.fp.domains.recheck(0)).toBeGreaterThanOrEqual(1);
    expect((await resend.domains.get(id)).data?.status).toBe("failed");

    expect((await resend.domains.remove(id)).data).toEqual({ object: "domain", id, deleted: true });
    expect((await resend.domains.get(id)).error).toMatchObject({ name: "not_found" });
  });

  it("refuses a name that is not a domain with a validation error naming it", async () => {
    const refused = await resend.domains.create({ name: "not a domain" });
    expect(refused.error).toMatchObject({ name: "validation_error" });
    expect(refused.error?.message).toContain("name");
  });
});
