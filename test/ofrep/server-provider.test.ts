import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OpenFeature } from "@openfeature/server-sdk";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { createValuedFlag } from "./support/valued-flag.js";

// The official OFREP provider, unchanged, against flagpost over HTTP on every storage (issue 27, "Tests").

let domains = 0;

describeEachStorage("@openfeature/ofrep-provider against the OFREP routes", (storage: () => Storage) => {
  let app: TestApp;
  let domain: string;
  beforeEach(async () => {
    app = await startApp({ storage: storage(), http: { rateLimit: false } });
    await app.fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    await app.fp.flags.create({ key: "everyone", enabled: true, rules: [] });
    await app.fp.flags.create({ key: "off", enabled: false, rules: [] });
    // Valued flags: a rule serves a named variant, everyone else gets the weighted one.
    const valued = (key: string, a: unknown, b: unknown) => createValuedFlag(app.fp, key, a, b);
    await valued("cta-text", "Buy", "Purchase");
    await valued("max-upload-mb", 100, 250);
    await valued("theme", { color: "blue" }, { color: "green", dense: true });
    const { key } = await app.fp.keys.create({ name: "client", scopes: ["flags:client"] });
    domain = `ofrep-${++domains}`;
    await OpenFeature.setProviderAndWait(
      domain,
      new OFREPProvider({ baseUrl: app.url, headers: [["Authorization", `Bearer ${key}`]] }),
    );
  });
  afterEach(async () => {
    await OpenFeature.clearProviders();
    await app.close();
  });

  const client = () => OpenFeature.getClient(domain);

  it("serves string, number and object values, a rule's named variant first", async () => {
    const vip = { targetingKey: "vip" };
    expect(await client().getStringDetails("cta-text", "x", vip)).toMatchObject({
      value: "Purchase",
      variant: "b",
      reason: "TARGETING_MATCH",
    });
    expect(await client().getNumberDetails("max-upload-mb", 0, vip)).toMatchObject({ value: 250, variant: "b" });
    expect(await client().getObjectDetails("theme", {}, vip)).toMatchObject({
      value: { color: "green", dense: true },
      variant: "b",
    });
    // A flag without rules serves everyone their weighted variant: the one the in-process client gives.
    await app.fp.flags.create({
      key: "cta-split",
      enabled: true,
      variants: [
        { key: "a", weight: 50, value: "Buy" },
        { key: "b", weight: 50, value: "Purchase" },
      ],
    });
    for (const targetingKey of ["u1", "u2", "u3", "u4"]) {
      const remote = await client().getStringDetails("cta-split", "x", { targetingKey });
      const local = app.fp.flagClient.getValueDetail("cta-split", { userId: targetingKey }, "x");
      expect(local.variant).toBeDefined();
      expect(remote).toMatchObject({ value: local.value, variant: local.variant, reason: "SPLIT" });
    }
    // Off for this user (the rule names someone else): no value is sent, so the code default.
    expect((await client().getStringDetails("cta-text", "x", { targetingKey: "u7" })).value).toBe("x");
    // A string flag read as a number: the code default and TYPE_MISMATCH.
    expect(await client().getNumberDetails("cta-text", 7, vip)).toMatchObject({ value: 7, errorCode: "TYPE_MISMATCH" });
  });

  it("serves a boolean flag, targeted by context", async () => {
    const match = await client().getBooleanDetails("beta", false, { targetingKey: "u1" });
    expect(match).toMatchObject({ value: true, reason: "TARGETING_MATCH" });
    const other = await client().getBooleanDetails("beta", true, { targetingKey: "u2" });
    expect(other).toMatchObject({ value: false, reason: "DEFAULT" });
    expect(await client().getBooleanDetails("everyone", false)).toMatchObject({ value: true, reason: "STATIC" });
  });

  it("answers DISABLED for an off flag", async () => {
    expect(await client().getBooleanDetails("off", true)).toMatchObject({ value: false, reason: "DISABLED" });
  });

  it("gives FLAG_NOT_FOUND for an unknown flag and the code default", async () => {
    const details = await client().getBooleanDetails("nope", true);
    expect(details).toMatchObject({ value: true, errorCode: "FLAG_NOT_FOUND", reason: "ERROR" });
  });

  it("gives TYPE_MISMATCH for a boolean flag read as a string", async () => {
    const details = await client().getStringDetails("beta", "fallback", { targetingKey: "u1" });
    expect(details).toMatchObject({ value: "fallback", errorCode: "TYPE_MISMATCH" });
  });

  it("refuses a flags:client key everywhere else, and answers bulk with an ETag and 304", async () => {
    const { key } = await app.fp.keys.create({ name: "client2", scopes: ["flags:client"] });
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    expect((await fetch(`${app.url}/v1/flags`, { headers: auth })).status).toBe(403);
    const body = JSON.stringify({ context: { targetingKey: "u1" } });
    const bulk = await fetch(`${app.url}/ofrep/v1/evaluate/flags`, { method: "POST", headers: auth, body });
    expect(bulk.status).toBe(200);
    const etag = bulk.headers.get("etag")!;
    expect(((await bulk.json()) as { flags: unknown[] }).flags).toHaveLength(6);
    const again = await fetch(`${app.url}/ofrep/v1/evaluate/flags`, {
      method: "POST",
      headers: { ...auth, "if-none-match": etag },
      body,
    });
    expect(again.status).toBe(304);
    await app.fp.flags.update("off", { enabled: true });
    const changed = await fetch(`${app.url}/ofrep/v1/evaluate/flags`, {
      method: "POST",
      headers: { ...auth, "if-none-match": etag },
      body,
    });
    expect(changed.status).toBe(200);
  });
});
