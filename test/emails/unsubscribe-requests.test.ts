import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { startApp, type TestApp } from "../support/servers.js";

/**
 * Issue 28, one-click unsubscribe: what a send may ask for (`unsubscribe: true`, an https: or
 * mailto: URL), the headers each stores, and the refusals, over HTTP (single and batch) and in
 * process. The headers on the wire are checked against a real SMTP server in unsubscribe.test.ts.
 */

const mail = { from: "news@acme.example", to: "ann@example.org", subject: "News", text: "Hello" };

describe("unsubscribe on a send", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ publicUrl: "https://mail.acme.example/flagpost" });
  });
  afterAll(() => app.close());

  async function headersOf(unsubscribe: unknown): Promise<Record<string, string> | undefined> {
    const response = await app.call("POST", "/v1/emails", { ...mail, unsubscribe });
    expect(response.status, await response.clone().text()).toBe(200);
    const { id } = (await response.json()) as { id: string };
    return (await app.fp.storage.emails.getEmail(id))!.content.headers;
  }

  it("links true to flagpost's own URL with both headers, https URLs with both, mailto with the first only", async () => {
    const own = await headersOf(true);
    expect(own?.["List-Unsubscribe"]).toMatch(
      /^<https:\/\/mail\.acme\.example\/flagpost\/v1\/unsubscribe\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}>$/,
    );
    expect(own?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(await headersOf("https://acme.example/unsub?u=42")).toEqual({
      "List-Unsubscribe": "<https://acme.example/unsub?u=42>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    expect(await headersOf("mailto:unsubscribe@acme.example?subject=stop")).toEqual({
      "List-Unsubscribe": "<mailto:unsubscribe@acme.example?subject=stop>",
    });
    expect(await headersOf(false)).toBeUndefined();
    expect(await headersOf(null)).toBeUndefined();
  });

  it("makes a different token per email and per recipient", async () => {
    const tokens = new Set<string>();
    for (const to of ["ann@example.org", "ann@example.org", "bob@example.org"]) {
      const { id } = await app.fp.emails.send({ ...mail, to, unsubscribe: true });
      tokens.add((await app.fp.storage.emails.getEmail(id))!.content.headers!["List-Unsubscribe"]!);
    }
    expect(tokens.size).toBe(3);
  });

  it("refuses what it cannot send with 422 naming unsubscribe", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ unsubscribe: "http://acme.example/unsub" }, /https: or mailto:/],
      [{ unsubscribe: "javascript:alert(1)" }, /https: or mailto:/],
      [{ unsubscribe: "https://acme.example/a b" }, /https: or mailto:/],
      [{ unsubscribe: "https://acme.example/>\r\nBcc: x@y.z" }, /https: or mailto:/],
      [{ unsubscribe: 1 }, /https: or mailto:/],
      [{ unsubscribe: true, to: ["ann@example.org", "bob@example.org"] }, /exactly one recipient.*got 2/],
      [{ unsubscribe: true, cc: "bob@example.org" }, /exactly one recipient/],
      [{ unsubscribe: true, headers: { "list-unsubscribe": "<https://x.example>" } }, /list-unsubscribe/],
    ];
    for (const [change, message] of cases) {
      const response = await app.call("POST", "/v1/emails", { ...mail, ...change });
      const body = (await response.json()) as { name: string; message: string };
      expect(response.status, JSON.stringify(change)).toBe(422);
      expect(body.message, JSON.stringify(change)).toMatch(/unsubscribe/);
      expect(body.message, JSON.stringify(change)).toMatch(message);
    }
    // A batch names the email.
    const batch = await app.call("POST", "/v1/emails/batch", [mail, { ...mail, unsubscribe: "ftp://x.example" }]);
    expect(batch.status).toBe(422);
    expect(((await batch.json()) as { message: string }).message).toMatch(/^"1\.unsubscribe"/);
    // Several recipients are fine with the sender's own link.
    const many = await app.call("POST", "/v1/emails", {
      ...mail,
      to: ["ann@example.org", "bob@example.org"],
      unsubscribe: "https://acme.example/unsub",
    });
    expect(many.status).toBe(200);
  });

  it("refuses unsubscribe: true without a public URL, in process and in a batch, and takes a URL", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    try {
      const refusal = await fp.emails.send({ ...mail, unsubscribe: true }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(FlagpostError);
      expect((refusal as FlagpostError).code).toBe("validation_error");
      expect((refusal as FlagpostError).details?.[0]).toMatchObject({ path: "unsubscribe" });
      expect((refusal as FlagpostError).message).toMatch(/FLAGPOST_PUBLIC_URL/);
      const permissive = await fp.emails.sendBatch([mail, { ...mail, unsubscribe: true }], {
        validation: "permissive",
      });
      expect(permissive.data).toHaveLength(1);
      expect(permissive.errors).toEqual([{ index: 1, message: expect.stringMatching(/^"unsubscribe" true needs/) }]);
      const { id } = await fp.emails.send({ ...mail, unsubscribe: "https://acme.example/u" });
      expect((await fp.storage.emails.getEmail(id))!.content.headers).toMatchObject({
        "List-Unsubscribe": "<https://acme.example/u>",
      });
    } finally {
      await fp.close();
    }
    expect(() => createFlagpost({ storage: memoryStorage(), publicUrl: "mail.acme.example" })).toThrow(
      /publicUrl must be/,
    );
  });
});
