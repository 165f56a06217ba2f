import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OpenFeature } from "@openfeature/server-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";

// The official OFREP provider, unchanged, against flagpost over HTTP (issue 27, "Tests").

describe("@openfeature/ofrep-provider against the OFREP routes", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false } });
    await app.fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    await app.fp.flags.create({ key: "everyone", enabled: true, rules: [] });
    await app.fp.flags.create({ key: "off", enabled: false, rules: [] });
    const { key } = await app.fp.keys.create({ name: "client", scopes: ["flags:client"] });
    await OpenFeature.setProviderAndWait(
      "ofrep",
      new OFREPProvider({ baseUrl: app.url, headers: [["Authorization", `Bearer ${key}`]] }),
    );
  });
  afterAll(async () => {
    await OpenFeature.close();
    await app.close();
  });

  const client = () => OpenFeature.getClient("ofrep");

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
    expect(((await bulk.json()) as { flags: unknown[] }).flags).toHaveLength(3);
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
