import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ifNoneMatchHits } from "../../adapters/http/etag.js";
import { startApp, type TestApp } from "../support/servers.js";

interface SnapshotBody {
  data: { version: string; flags: { key: string; rules: unknown[]; updatedAt: string }[] };
}

describe("GET /v1/flags/_snapshot", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
    await app.fp.flags.create({ key: "zeta", enabled: true });
    await app.fp.flags.create({ key: "alpha", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
  });
  afterAll(async () => app.close());

  it("returns every flag with its rules, ordered by key, with an ETag equal to the version", async () => {
    const response = await app.call("GET", "/v1/flags/_snapshot");
    expect(response.status).toBe(200);
    const body = (await response.json()) as SnapshotBody;
    expect(Object.keys(body)).toEqual(["data"]);
    expect(body.data.flags.map((f) => f.key)).toEqual(["alpha", "zeta"]);
    const single = (await (await app.call("GET", "/v1/flags/alpha")).json()) as { data: unknown };
    expect(body.data.flags[0]).toEqual(single.data);
    expect(response.headers.get("etag")).toBe(`"${body.data.version}"`);
    expect(response.headers.get("cache-control")).toBe("no-cache");
  });

  it("answers 304 without a body while nothing changed, and 200 with a new ETag after a write", async () => {
    const first = await app.call("GET", "/v1/flags/_snapshot");
    const etag = first.headers.get("etag")!;
    const again = await app.call("GET", "/v1/flags/_snapshot", undefined, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");

    await app.fp.flags.update("zeta", { enabled: false });
    const changed = await app.call("GET", "/v1/flags/_snapshot", undefined, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    const body = (await changed.json()) as { data: { flags: { key: string; enabled: boolean }[] } };
    expect(body.data.flags.find((f) => f.key === "zeta")?.enabled).toBe(false);
  });

  it("needs flags:read: a flags:evaluate key (what a browser holds) must not see every rule", async () => {
    const evaluateOnly = await app.fp.keys.create({ name: "browser", scopes: ["flags:evaluate", "events:write"] });
    const reader = await app.fp.keys.create({ name: "sdk", scopes: ["flags:read"] });
    const refused = await fetch(`${app.url}/v1/flags/_snapshot`, {
      headers: { authorization: `Bearer ${evaluateOnly.key}` },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("restricted_api_key");
    const allowed = await fetch(`${app.url}/v1/flags/_snapshot`, {
      headers: { authorization: `Bearer ${reader.key}` },
    });
    expect(allowed.status).toBe(200);
    expect((await fetch(`${app.url}/v1/flags/_snapshot`)).status).toBe(401);
  });

  it("refuses query parameters, and leaves /v1/flags/{key} alone", async () => {
    const withQuery = await app.call("GET", "/v1/flags/_snapshot?include=rules");
    expect(withQuery.status).toBe(422);
    expect(((await withQuery.json()) as { error: { message: string } }).error.message).toBe(
      '"include" is not a parameter of this route',
    );
    // "_snapshot" can never be a flag key; "snapshot" can, and is an ordinary flag.
    expect((await app.call("POST", "/v1/flags", { key: "_snapshot" })).status).toBe(422);
    expect((await app.call("GET", "/v1/flags/snapshot")).status).toBe(404);
    expect((await app.call("POST", "/v1/flags", { key: "snapshot" })).status).toBe(201);
    expect((await app.call("GET", "/v1/flags/snapshot")).status).toBe(200);
  });
});

describe("If-None-Match", () => {
  it("compares entity tags weakly and accepts lists and *", () => {
    expect(ifNoneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"x", W/"abc"', '"abc"')).toBe(true);
    expect(ifNoneMatchHits("*", '"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abd"', '"abc"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"abc"')).toBe(false);
  });
});
