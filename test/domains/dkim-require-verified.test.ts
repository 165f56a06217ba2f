import { Resend } from "resend";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { splitTxt } from "../../src/domains/dns-records.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { startTestDns } from "./support/test-dns.js";

/**
 * Issue 28, `domains.requireVerified` (FLAGPOST_REQUIRE_VERIFIED_DOMAIN=true): over HTTP and
 * through the resend SDK, a send whose `from` domain is not verified is refused with 422
 * `validation_error` naming `from`, single and batch, on every storage; off by default.
 */

let dns: Awaited<ReturnType<typeof startTestDns>>;
beforeAll(async () => (dns = await startTestDns()));
afterAll(() => dns.close());

let serial = 0;
const freshDomain = () => `r${Date.now().toString(36)}${(serial++).toString(36)}.example.com`;
const refusal = (domain: string, path = "from") =>
  `"${path}" must be at a verified domain: ${domain} is not verified (add it with POST /v1/domains and verify its DNS records)`;

describeEachStorage("sending only from verified domains", (storage: () => Storage, backend) => {
  // Its own block: an enabled database backend registers its tests at the file's top level.
  describe(backend, () => {
    let app: TestApp;
    let resend: Resend;

    async function start(requireVerified?: boolean) {
      app = await startApp({
        storage: storage(),
        secretKey: "require-verified-test-secret",
        domains: {
          resolver: dns.resolver,
          mxHost: "mx.flagpost.test",
          spf: "ip4:127.0.0.1",
          autoStart: false,
          ...(requireVerified === undefined ? {} : { requireVerified }),
        },
        http: { rateLimit: false },
      });
      resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
    }
    afterEach(() => app.close());

    /** Adds a domain through the SDK, publishes its records on the test DNS and verifies it. */
    async function verifiedDomain(): Promise<{ id: string; name: string }> {
      const name = freshDomain();
      const { data } = await resend.domains.create({ name });
      for (const r of data!.records) {
        const host = `${r.name}.${name}`;
        if (r.type === "MX") dns.zone.mx.set(host, [{ exchange: r.value, priority: r.priority ?? 10 }]);
        else dns.zone.txt.set(host, [splitTxt(r.value)]);
      }
      await resend.domains.verify(data!.id);
      expect((await resend.domains.get(data!.id)).data?.status).toBe("verified");
      return { id: data!.id, name };
    }

    describe("on", () => {
      beforeEach(() => start(true));

      it("refuses a single send from an unknown or unverified domain, naming from; accepts a verified one", async () => {
        const { name } = await verifiedDomain();
        const ok = await resend.emails.send({
          from: `Acme <news@${name}>`,
          to: "ann@example.org",
          subject: "s",
          text: "t",
        });
        expect(ok.error).toBeNull();

        const unknown = freshDomain();
        const refused = await app.call("POST", "/v1/emails", {
          from: `news@${unknown}`,
          to: "ann@example.org",
          subject: "s",
          text: "t",
        });
        expect(refused.status).toBe(422);
        expect(await refused.json()).toEqual({ statusCode: 422, name: "validation_error", message: refusal(unknown) });

        const pending = freshDomain();
        await resend.domains.create({ name: pending });
        const sdk = await resend.emails.send({
          from: `News <news@${pending}>`,
          to: "ann@example.org",
          subject: "s",
          text: "t",
        });
        expect(sdk.data).toBeNull();
        expect(sdk.error).toMatchObject({ statusCode: 422, name: "validation_error", message: refusal(pending) });
        expect((await resend.emails.list()).data?.data).toHaveLength(1);
      });

      it("refuses a strict batch naming the index; a permissive batch sends the verified ones", async () => {
        const { name } = await verifiedDomain();
        const other = freshDomain();
        const good = { from: `news@${name}`, to: "ann@example.org", subject: "s", text: "t" };
        const bad = { ...good, from: `news@${other}` };
        const strict = await resend.batch.send([good, bad]);
        expect(strict.data).toBeNull();
        expect(strict.error).toMatchObject({
          statusCode: 422,
          name: "validation_error",
          message: refusal(other, "1.from"),
        });
        expect((await resend.emails.list()).data?.data).toHaveLength(0);

        const permissive = await resend.batch.send([bad, good], { batchValidation: "permissive" });
        expect(permissive.error).toBeNull();
        expect(permissive.data!.data).toHaveLength(1);
        expect(permissive.data!.errors).toEqual([{ index: 0, message: refusal(other) }]);
      });

      it("refuses a domain once it is removed", async () => {
        const { id, name } = await verifiedDomain();
        const email = { from: `news@${name}`, to: "ann@example.org", subject: "s", text: "t" };
        expect((await resend.emails.send(email)).error).toBeNull();
        await resend.domains.remove(id);
        expect((await resend.emails.send(email)).error).toMatchObject({ statusCode: 422, message: refusal(name) });
      });
    });

    it("is off by default: any from domain is accepted", async () => {
      await start();
      const sent = await resend.emails.send({
        from: `news@${freshDomain()}`,
        to: "ann@example.org",
        subject: "s",
        text: "t",
      });
      expect(sent.error).toBeNull();
    });
  });
});
