import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp } from "../support/servers.js";

const email = { from: "Flagpost <hello@example.com>", to: "ann@example.org", subject: "Hi", text: "Hello" };

/** Every email-route response is JSON (the resend SDK parses every body), errors Resend-shaped. */
async function json(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return (await response.json()) as Record<string, unknown>;
}

describe("email routes over node:http", () => {
  let app: TestApp;
  let sendOnly: string;
  beforeAll(async () => {
    app = await startApp();
    sendOnly = (await app.fp.keys.create({ name: "sender", scopes: ["emails:send", "emails:read"] })).key;
  });
  afterAll(async () => app.close());

  const as = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(app.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("POST /v1/emails answers 200 with the queued record; GET shows it", async () => {
    const res = await app.call("POST", "/v1/emails", {
      ...email,
      cc: ["Carol <carol@example.org>"],
      tags: [{ name: "k", value: "v" }],
    });
    expect(res.status).toBe(200);
    const created = await json(res);
    expect(Object.keys(created).sort()).toEqual(["created_at", "from", "id", "status", "subject", "to"]);
    expect(created).toMatchObject({ from: email.from, to: ["ann@example.org"], subject: "Hi", status: "queued" });

    const got = await json(await app.call("GET", `/v1/emails/${created.id}`));
    expect(got).toEqual({
      object: "email",
      id: created.id,
      from: email.from,
      to: ["ann@example.org"],
      cc: ["Carol <carol@example.org>"],
      subject: "Hi",
      text: "Hello",
      tags: [{ name: "k", value: "v" }],
      status: "queued",
      last_event: "queued",
      created_at: created.created_at,
      message_id: `<${created.id}@example.com>`,
    });
    const events = await json(await app.call("GET", `/v1/emails/${created.id}/events`));
    expect(events).toEqual({ object: "list", data: [{ type: "queued", occurred_at: created.created_at }] });
  });

  it("refuses unknown fields with 422 naming them, in Resend's error shape", async () => {
    const res = await app.call("POST", "/v1/emails", { ...email, template: { id: "welcome" }, topic_id: "t" });
    expect(res.status).toBe(422);
    expect(await json(res)).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: '"template" is not a known field (and 1 more problem)',
    });
  });

  it("answers every error on an email route with a Resend-shaped JSON body", async () => {
    const anon = await fetch(`${app.url}/v1/emails`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(email),
    });
    expect(anon.status).toBe(401);
    expect(await json(anon)).toMatchObject({ statusCode: 401, name: "missing_api_key" });

    const wrong = await as("fp_unknown", "GET", "/v1/emails/x");
    expect(await json(wrong)).toMatchObject({ statusCode: 403, name: "invalid_api_key" });

    const flagsOnly = (await app.fp.keys.create({ scopes: ["flags:read"] })).key;
    expect(await json(await as(flagsOnly, "POST", "/v1/emails", email))).toMatchObject({
      statusCode: 403,
      name: "restricted_api_key",
    });

    const notJson = await fetch(`${app.url}/v1/emails`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.key}`, "content-type": "text/plain" },
      body: "hi",
    });
    expect(await json(notJson)).toMatchObject({ statusCode: 415, name: "unsupported_media_type" });

    const broken = await app.call("POST", "/v1/emails", "{not json");
    expect(await json(broken)).toMatchObject({ statusCode: 400, name: "invalid_json" });

    const missing = await app.call("GET", "/v1/emails/0197ffff-0000-7000-8000-000000000000");
    expect(await json(missing)).toEqual({
      statusCode: 404,
      name: "not_found",
      message: 'Email "0197ffff-0000-7000-8000-000000000000" was not found',
    });

    const method = await app.call("DELETE", "/v1/emails/0197ffff-0000-7000-8000-000000000000");
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("PATCH, GET");
    expect(await json(method)).toMatchObject({ statusCode: 405, name: "method_not_allowed" });
  });

  it("takes bodies above 1 MiB on POST /v1/emails and refuses them past 40 MiB with 413", async () => {
    const attachment = Buffer.alloc(2 * 1024 * 1024, 7).toString("base64");
    const big = await app.call("POST", "/v1/emails", {
      ...email,
      attachments: [{ filename: "big.bin", content: attachment }],
    });
    expect(big.status).toBe(200);
    const stored = await app.fp.storage.emails.getEmail(String((await json(big)).id));
    expect(stored?.content.attachments?.[0]?.content).toBe(attachment);

    const huge = await app.call("POST", "/v1/emails", `{"padding":"${"x".repeat(40 * 1024 * 1024)}"}`);
    expect(huge.status).toBe(413);
    expect(await json(huge)).toMatchObject({ statusCode: 413, name: "payload_too_large" });
  });

  it("POST /v1/emails/batch: strict refuses the batch naming the index; permissive adds errors", async () => {
    const strict = await app.call("POST", "/v1/emails/batch", [email, { ...email, to: "nope" }]);
    expect(strict.status).toBe(422);
    expect(await json(strict)).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: '"1.to" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"',
    });

    const permissive = await app.call("POST", "/v1/emails/batch", [email, { ...email, to: "nope" }, email], {
      "x-batch-validation": "permissive",
    });
    expect(permissive.status).toBe(200);
    const body = await json(permissive);
    expect((body.data as unknown[]).length).toBe(2);
    expect(body.errors).toEqual([
      { index: 1, message: '"to" must be an email address such as "ann@example.com" or "Ann <ann@example.com>"' },
    ]);

    const ok = await json(await app.call("POST", "/v1/emails/batch", [email, email]));
    expect(Object.keys(ok)).toEqual(["data"]);
    const bad = await app.call("POST", "/v1/emails/batch", [email], { "x-batch-validation": "sometimes" });
    expect(await json(bad)).toMatchObject({ statusCode: 422, name: "validation_error" });
  });

  it("Idempotency-Key: same key and body → first response; other body → 409; keys are per API key", async () => {
    const headers = { "idempotency-key": "order-1234" };
    const first = await json(await app.call("POST", "/v1/emails", email, headers));
    const again = await app.call("POST", "/v1/emails", email, headers);
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual(first);

    const other = await app.call("POST", "/v1/emails", { ...email, subject: "Changed" }, headers);
    expect(other.status).toBe(409);
    expect(await json(other)).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });

    const otherKey = await json(await as(sendOnly, "POST", "/v1/emails", email, headers));
    expect(otherKey.id).not.toBe(first.id);

    const tooLong = await app.call("POST", "/v1/emails", email, { "idempotency-key": "k".repeat(257) });
    expect(await json(tooLong)).toMatchObject({ statusCode: 422, name: "validation_error" });
  });

  it("POST /v1/emails/{id}/events needs full_access and follows the lifecycle", async () => {
    const { id } = await json(await app.call("POST", "/v1/emails", email));
    const restricted = await as(sendOnly, "POST", `/v1/emails/${id}/events`, { type: "delivered" });
    expect(await json(restricted)).toMatchObject({ statusCode: 403, name: "restricted_api_key" });

    const delivered = await app.call("POST", `/v1/emails/${id}/events`, {
      type: "delivered",
      occurred_at: "2026-01-01T00:00:00Z",
      detail: { by: "webhook" },
    });
    expect(delivered.status).toBe(200);
    expect(await json(delivered)).toMatchObject({
      status: "delivered",
      last_event: "delivered",
      sent_at: "2026-01-01T00:00:00.000Z",
      delivered_at: "2026-01-01T00:00:00.000Z",
    });

    const refused = await app.call("POST", `/v1/emails/${id}/events`, { type: "bounced" });
    expect(refused.status).toBe(422);
    expect(await json(refused)).toEqual({
      statusCode: 422,
      name: "invalid_transition",
      message: "An email that is delivered cannot become bounced",
    });

    const events = await json(await app.call("GET", `/v1/emails/${id}/events`));
    expect((events.data as { type: string }[]).map((e) => e.type)).toEqual(["queued", "delivered"]);
  });

  it("needs no User-Agent", async () => {
    const body = JSON.stringify(email);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${app.url}/v1/emails`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${app.key}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ status: "queued" });
  });
});
