import {
  isBulkEvaluationFailureResponse,
  isBulkEvaluationSuccessResponse,
  isEvaluationFailureResponse,
  isEvaluationSuccessResponse,
} from "@openfeature/ofrep-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponse } from "../../adapters/http/error-body.js";
import { ofrepReason } from "../../adapters/http/ofrep/answer.js";
import type { EvaluationResult } from "../../src/flags/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import {
  BULK,
  loadSpec,
  readAsMeant,
  SINGLE,
  type SpecValidator,
  specValidator,
  withDefaultReason,
} from "./spec-schemas.js";
import { createValuedFlag } from "./support/valued-flag.js";

// Every answer of the OFREP routes against the schema the specification (fixtures/openapi.yaml)
// gives its status, and against the official ofrep-core 0.1 type guards (issue 27).

const spec = loadSpec();
const asMeant = readAsMeant(spec.components.schemas);
/** The spec read as meant, plus flagpost's one extension (the DEFAULT reason, docs/ofrep.md). */
const flagpost = specValidator(spec, withDefaultReason(asMeant));
/** The spec read as meant, nothing added. */
const strict = specValidator(spec, asMeant);

type Answer = { status: number; body: unknown; headers: Headers };

describe("OFREP answers against the specification's schemas", () => {
  let app: TestApp;
  let clientKey: string;
  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false } });
    const { fp } = app;
    await fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    await fp.flags.create({ key: "everyone", enabled: true, rules: [] });
    await fp.flags.create({ key: "off", enabled: false, rules: [] });
    await fp.flags.create({ key: "half", enabled: true, rules: [{ type: "percentage", percentage: 50 }] });
    const valued = (key: string, a: unknown, b: unknown) => createValuedFlag(fp, key, a, b);
    await valued("cta-text", "Buy", "Purchase");
    await valued("max-upload-mb", 100, 250);
    await valued("ratio", 0.25, 0.75);
    await valued("theme", { color: "blue" }, { color: "green" });
    await fp.flags.create({
      key: "split-text",
      enabled: true,
      variants: [
        { key: "a", weight: 50, value: "A" },
        { key: "b", weight: 50, value: "B" },
      ],
    });
    await fp.flags.create({
      key: "off-text",
      enabled: false,
      variants: [
        { key: "a", weight: 50, value: "A" },
        { key: "b", weight: 50, value: "B" },
      ],
    });
    clientKey = (await fp.keys.create({ name: "client", scopes: ["flags:client"] })).key;
  });
  afterAll(() => app.close());

  async function post(path: string, body: unknown, headers: Record<string, string> = {}, key = clientKey) {
    const res = await fetch(app.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown), headers: res.headers };
  }
  const single = (key: string, context: unknown) => post(`/ofrep/v1/evaluate/flags/${key}`, { context });
  const bulk = (context: unknown, headers?: Record<string, string>) =>
    post("/ofrep/v1/evaluate/flags", { context }, headers);

  function expectValid(validator: SpecValidator, path: string, answer: Answer) {
    expect(validator.check(path, answer.status, answer.body), JSON.stringify(answer.body)).toEqual([]);
  }

  it("reads the spec as meant: literally, its oneOf refuses even the spec's own example", () => {
    const literal = specValidator(spec, spec.components.schemas);
    const example = { key: "discount-banner", value: true, reason: "TARGETING_MATCH", variant: "enabled" };
    expect(literal.check(SINGLE, 200, example).map((e) => e.keyword)).toContain("oneOf");
    expect(strict.check(SINGLE, 200, example)).toEqual([]);
    // As meant, an answer without value is the code default, and a value of another type is refused.
    expect(strict.check(SINGLE, 200, { key: "k", reason: "DISABLED" })).toEqual([]);
    expect(strict.check(SINGLE, 200, { key: "k", reason: "STATIC", value: null })).not.toEqual([]);
  });

  it("answers boolean, string, integer, float and object flags, each reason, as evaluationSuccess", async () => {
    const cases: [string, unknown, unknown, string][] = [
      ["beta", { targetingKey: "u1" }, true, "TARGETING_MATCH"],
      ["everyone", { targetingKey: "u1" }, true, "STATIC"],
      ["off", { targetingKey: "u1" }, false, "DISABLED"],
      ["cta-text", { targetingKey: "vip" }, "Purchase", "TARGETING_MATCH"],
      ["max-upload-mb", { targetingKey: "vip" }, 250, "TARGETING_MATCH"],
      ["ratio", { targetingKey: "vip" }, 0.75, "TARGETING_MATCH"],
      ["theme", { targetingKey: "vip" }, { color: "green" }, "TARGETING_MATCH"],
    ];
    for (const [key, context, value, reason] of cases) {
      const answer = await single(key, context);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ key, value, reason });
      expectValid(strict, SINGLE, answer);
      expect(isEvaluationSuccessResponse(answer.body)).toBe(true);
    }
    const split = await single("split-text", { targetingKey: "u1" });
    expect(split.body).toMatchObject({ reason: "SPLIT", variant: expect.stringMatching(/^[ab]$/) });
    expectValid(strict, SINGLE, split);
    // A percentage rule lets some users in (SPLIT) and not others: one of 40 users is enough for both.
    const reasons = new Set<unknown>();
    for (let i = 0; i < 40; i++)
      reasons.add(((await single("half", { targetingKey: `p${i}` })).body as { reason: string }).reason);
    expect(reasons).toEqual(new Set(["SPLIT", "DEFAULT"]));
  });

  it("answers DEFAULT when nobody matched: flagpost's one reason beyond the spec's enum", async () => {
    const answer = await single("beta", { targetingKey: "u2" });
    expect(answer.body).toEqual({ key: "beta", value: false, reason: "DEFAULT" });
    expectValid(flagpost, SINGLE, answer);
    // Without the extension, the reason is the only thing the spec's schema refuses.
    expect(strict.check(SINGLE, 200, answer.body).map((e) => e.instancePath)).toEqual(["/reason"]);
    expect(isEvaluationSuccessResponse(answer.body)).toBe(true);
  });

  it("leaves value out for a valued flag that is off (the code default); ofrep-core 0.1's guard wants a value", async () => {
    for (const [key, context] of [
      ["off-text", { targetingKey: "u1" }],
      ["cta-text", { targetingKey: "u7" }],
    ] as const) {
      const answer = await single(key, context);
      expect(answer.status).toBe(200);
      expect(answer.body).not.toHaveProperty("value");
      expectValid(flagpost, SINGLE, answer);
      // The 0.1 provider reports it as an error and still answers the caller's default
      // (server-provider.test.ts); the spec's codeDefaultFlag is this answer.
      expect(isEvaluationSuccessResponse(answer.body)).toBe(false);
    }
  });

  it("serves an array value, which the spec's value types leave out, as OpenFeature's object", async () => {
    await app.fp.flags.create({
      key: "regions",
      enabled: true,
      variants: [
        { key: "eu", weight: 50, value: ["de", "fr"] },
        { key: "us", weight: 50, value: ["us"] },
      ],
    });
    const answer = await single("regions", { targetingKey: "u1" });
    expect(answer.body).toMatchObject({ key: "regions", value: expect.any(Array), reason: "SPLIT" });
    // The spec's objectFlag is `type: object`; OpenFeature's object value is any JSON structure,
    // and the providers hand it on (docs/ofrep.md "Where flagpost differs").
    expect(strict.check(SINGLE, 200, answer.body).some((e) => e.instancePath === "/value")).toBe(true);
    expect(isEvaluationSuccessResponse(answer.body)).toBe(true);
    await app.fp.flags.delete("regions");
  });

  it("answers an unknown flag 404 flagNotFound", async () => {
    const answer = await single("nope", { targetingKey: "u1" });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ key: "nope", errorCode: "FLAG_NOT_FOUND" });
    expectValid(strict, SINGLE, answer);
    expect(isEvaluationFailureResponse(answer.body)).toBe(true);
  });

  const invalidContexts: [string, unknown][] = [
    ["a targetingKey that is not a string", { targetingKey: 7 }],
    ["a context that is not an object", "u1"],
    ["a targetingKey longer than any user id", { targetingKey: "u".repeat(5000) }],
    ["an attribute storage cannot hold", { targetingKey: "u1", plan: "pro\u0000" }],
  ];

  it.each(invalidContexts)("answers %s 400 INVALID_CONTEXT on the single route", async (_, context) => {
    const answer = await single("beta", context);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ key: "beta", errorCode: "INVALID_CONTEXT" });
    expectValid(strict, SINGLE, answer);
    expect(isEvaluationFailureResponse(answer.body)).toBe(true);
  });

  it.each(invalidContexts)("answers %s 400 bulkEvaluationFailure on the bulk route", async (_, context) => {
    const answer = await bulk(context);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errorCode: "INVALID_CONTEXT", errorDetails: expect.any(String) });
    expectValid(strict, BULK, answer);
    expect(isBulkEvaluationFailureResponse(answer.body)).toBe(true);
  });

  it("answers a valued flag on for a context without targetingKey TARGETING_KEY_MISSING, single and bulk", async () => {
    const answer = await single("split-text", { plan: "pro" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ key: "split-text", errorCode: "TARGETING_KEY_MISSING" });
    expectValid(strict, SINGLE, answer);
    expect(isEvaluationFailureResponse(answer.body)).toBe(true);
    const all = await bulk({ plan: "pro" });
    expect(all.status).toBe(200);
    expectValid(flagpost, BULK, all);
    const flags = (all.body as { flags: { key: string }[] }).flags;
    expect(flags.find((f) => f.key === "split-text")).toEqual(answer.body);
    // A boolean flag needs no targetingKey to answer, nor a valued one that is off.
    expect(flags.find((f) => f.key === "everyone")).toMatchObject({ value: true, reason: "STATIC" });
    expect(flags.find((f) => f.key === "off-text")).toEqual({ key: "off-text", reason: "DISABLED" });
  });

  it("names the context's own field in INVALID_CONTEXT", async () => {
    const answer = await bulk({ targetingKey: "u".repeat(5000) });
    expect((answer.body as { errorDetails: string }).errorDetails).toMatch(/^context\.targetingKey /);
  });

  it("answers bulk with every flag as bulkEvaluationSuccess, and 304 without a body", async () => {
    for (const targetingKey of ["u1", "u2", "vip"]) {
      const answer = await bulk({ targetingKey, plan: "pro" });
      expect(answer.status).toBe(200);
      expectValid(flagpost, BULK, answer);
      expect(isBulkEvaluationSuccessResponse(answer.body)).toBe(true);
      // The event-stream link (ADR 0008) is part of what the spec's eventStream schema checked.
      expect((answer.body as { eventStreams?: unknown[] }).eventStreams).toHaveLength(1);
      const flags = (answer.body as { flags: { key: string }[] }).flags;
      expect(flags.map((f) => f.key).sort()).toEqual(app.fp.flagClient.keys());
      const again = await bulk({ targetingKey, plan: "pro" }, { "if-none-match": answer.headers.get("etag")! });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
    }
  });

  it("keeps the bulk ETag when the context's keys come in another order", async () => {
    const first = await bulk({ targetingKey: "u1", plan: "pro", country: "CA" });
    const reordered = await bulk({ country: "CA", plan: "pro", targetingKey: "u1" });
    expect(reordered.headers.get("etag")).toBe(first.headers.get("etag"));
    const other = await bulk({ targetingKey: "u1", plan: "free", country: "CA" });
    expect(other.headers.get("etag")).not.toBe(first.headers.get("etag"));
  });

  it("answers 401 and 403 as the spec lists them (no body schema), on both routes", async () => {
    for (const path of ["/ofrep/v1/evaluate/flags/beta", "/ofrep/v1/evaluate/flags"]) {
      const anonymous = await fetch(app.url + path, { method: "POST", body: "{}" });
      expect(anonymous.status).toBe(401);
      // An unknown key too: "credentials are missing, invalid, or expired" (flagpost's /v1 says 403, as Resend).
      const unknown = await post(path, { context: {} }, {}, "fp_not_a_key");
      expect(unknown.status).toBe(401);
      // The spec gives a 401 no body: flagpost's own, whose code says which refusal it was.
      expect(unknown.body).toMatchObject({ error: { code: "invalid_api_key" } });
      const { key } = await app.fp.keys.create({ name: "mail", scopes: ["emails:send"] });
      expect((await post(path, { context: {} }, {}, key)).status).toBe(403);
    }
    for (const status of [401, 403, 429]) {
      expect(flagpost.hasBody(SINGLE, status)).toBe(false);
      expect(flagpost.hasBody(BULK, status)).toBe(false);
    }
  });

  it("answers 429 with a Retry-After the spec accepts (a number of seconds)", async () => {
    const limited = await startApp({ http: { rateLimit: { burst: 1, perSecond: 0.01 } } });
    try {
      const { key } = await limited.fp.keys.create({ name: "client", scopes: ["flags:client"] });
      const call = () =>
        fetch(`${limited.url}/ofrep/v1/evaluate/flags`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ context: { targetingKey: "u1" } }),
        });
      expect((await call()).status).toBe(200);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });

  it("answers a body that is not JSON 400 PARSE_ERROR, in the failure shape of each route", async () => {
    const answer = await post("/ofrep/v1/evaluate/flags/beta", "{not json");
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ key: "beta", errorCode: "PARSE_ERROR", errorDetails: expect.any(String) });
    expectValid(strict, SINGLE, answer);
    expect(isEvaluationFailureResponse(answer.body)).toBe(true);
    const encoded = await post("/ofrep/v1/evaluate/flags/caf%C3%A9", "{not json");
    expect(encoded.body).toMatchObject({ key: "café", errorCode: "PARSE_ERROR" });
    const all = await post("/ofrep/v1/evaluate/flags", "{not json");
    expect(all.status).toBe(400);
    expect(all.body).toEqual({ errorCode: "PARSE_ERROR", errorDetails: expect.any(String) });
    expectValid(strict, BULK, all);
    expect(isBulkEvaluationFailureResponse(all.body)).toBe(true);
  });

  it("answers an unexpected failure 500 GENERAL without its message (generalErrorResponse)", () => {
    // The routes answer from memory, so no storage failure reaches them; the error table is the same code.
    for (const path of ["/ofrep/v1/evaluate/flags/beta", "/ofrep/v1/evaluate/flags"]) {
      const response = errorResponse("ofrep", new Error("password=hunter2"), {}, path);
      expect(response.status).toBe(500);
      const body = JSON.parse(response.body as string) as { errorCode: string; errorDetails: string };
      expect(body).toMatchObject({ errorCode: "GENERAL" });
      expect(body.errorDetails).not.toContain("hunter2");
      expectValid(strict, path.endsWith("beta") ? SINGLE : BULK, { status: 500, body, headers: new Headers() });
    }
  });

  it("sends no TYPE_MISMATCH: the spec's failure codes leave it to the SDK, which knows the type asked for", () => {
    const codes = (spec.components.schemas.evaluationFailure as { properties: { errorCode: { enum: string[] } } })
      .properties.errorCode.enum;
    expect(codes).not.toContain("TYPE_MISMATCH");
  });

  it("maps a reason it does not know to UNKNOWN, the spec's word, not ERROR", () => {
    const future = { enabled: true, reason: "some_future_reason" } as unknown as EvaluationResult;
    expect(ofrepReason(future)).toBe("UNKNOWN");
    expect(strict.check(SINGLE, 200, { key: "k", value: true, reason: ofrepReason(future) })).toEqual([]);
  });
});
