import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError } from "./client.js";

const MiB = 1024 * 1024;

/** A valid flag body of exactly `size` bytes: the JSON is padded with spaces. */
function paddedFlag(key: string, size: number): string {
  const head = `{"key":"${key}"`;
  return head + " ".repeat(size - head.length - 1) + "}";
}

/** The same bytes as a stream of 64 KiB chunks: sent chunked, with no Content-Length. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
      offset += 64 * 1024;
    },
  });
}

/** docs/api.md "Errors": 400, 404, 405, 413, 415, and where flagpost stops and the app begins. */
export function errorCases(start: Start): void {
  describe("a bodyLimit of 100 bytes", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start({ http: { bodyLimit: 100 } });
    });
    afterAll(() => t.close());

    it("accepts 100 bytes and answers 413 at 101", async () => {
      if (t.appParsesBodies) {
        // express.json({limit: "1mb"}) read the body before flagpost, so its limit is the one that
        // applies (docs/http.md); flagpost's error handler still answers in docs/api.md's shape.
        expect((await call(t, "POST", "/v1/flags", { raw: paddedFlag("large", 101) })).status).toBe(201);
        expectError(
          await call(t, "POST", "/v1/flags", { raw: paddedFlag("huge", 1024 * 1024 + 1) }),
          413,
          "payload_too_large",
        );
        return;
      }
      expect((await call(t, "POST", "/v1/flags", { raw: paddedFlag("small", 100) })).status).toBe(201);
      expectError(await call(t, "POST", "/v1/flags", { raw: paddedFlag("large", 101) }), 413, "payload_too_large");
      expectError(
        await call(t, "POST", "/v1/flags", { raw: chunked(paddedFlag("large", 101)) }),
        413,
        "payload_too_large",
      );
    });
  });

  describe("errors", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start();
      await t.fp.flags.create({ key: "exists" });
    });
    afterAll(() => t.close());

    it("400 invalid_json for a body that is not JSON, on every route that reads one", async () => {
      for (const [method, path] of [
        ["POST", "/v1/flags"],
        ["PATCH", "/v1/flags/exists"],
        ["POST", "/v1/flags/exists/evaluate"],
      ] as const) {
        for (const raw of ['{"key":', "{key: 'x'}", "undefined", "{}}", "\u00ff\u00fe"]) {
          expectError(await call(t, method, path, { raw }), 400, "invalid_json");
        }
      }
      expect((await call(t, "GET", "/v1/flags/exists")).body.data.enabled).toBe(false);
    });

    it("400 invalid_json for bytes that are not UTF-8, instead of storing U+FFFD", async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"key":"latin1","description":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}'),
      ]);
      const reply = await call(t, "POST", "/v1/flags", {
        raw: new Uint8Array(bytes),
        headers: { "content-type": "application/json" },
      });
      if (t.appParsesBodies) {
        // body-parser decoded the bytes (with a replacement character) before flagpost saw them,
        // as docs/http.md warns: mount flagpost before express.json() to have them refused.
        expect(reply.status).toBe(201);
        expect(reply.body.data.description).toBe("caf\uFFFD");
      } else {
        expectError(reply, 400, "invalid_json");
        expect((await call(t, "GET", "/v1/flags/latin1")).status).toBe(404);
      }
      const utf8 = await call(t, "POST", "/v1/flags", {
        raw: JSON.stringify({ key: "utf8", description: "café ☕ 𝄞" }),
      });
      expect(utf8.body.data.description).toBe("café ☕ 𝄞");
    });

    it("415 unsupported_media_type for a body that is not declared as JSON", async () => {
      const json = JSON.stringify({ key: "typed" });
      for (const contentType of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "text/json",
      ]) {
        const reply = await call(t, "POST", "/v1/flags", { raw: json, headers: { "content-type": contentType } });
        expectError(reply, 415, "unsupported_media_type");
      }
      // No Content-Type at all (a bare byte body).
      expectError(
        await call(t, "POST", "/v1/flags", { raw: new TextEncoder().encode(json) }),
        415,
        "unsupported_media_type",
      );
      expectError(
        await call(t, "PATCH", "/v1/flags/exists", {
          raw: "enabled=true",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        }),
        415,
        "unsupported_media_type",
      );
      expect((await call(t, "GET", "/v1/flags/typed")).status).toBe(404);
      for (const contentType of [
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.flagpost+json",
      ]) {
        const reply = await call(t, "POST", "/v1/flags/exists/evaluate", {
          raw: "{}",
          headers: { "content-type": contentType },
        });
        expect(reply.status, contentType).toBe(200);
      }
    });

    it("413 payload_too_large past 1 MiB, with a Content-Length and chunked; exactly 1 MiB is accepted", async () => {
      const exact = await call(t, "POST", "/v1/flags", { raw: paddedFlag("exactly-1mib", MiB) });
      expect(exact.status, exact.text).toBe(201);
      expectError(
        await call(t, "POST", "/v1/flags", { raw: paddedFlag("over-1mib", MiB + 1) }),
        413,
        "payload_too_large",
      );
      const exactChunked = await call(t, "POST", "/v1/flags", { raw: chunked(paddedFlag("chunked-1mib", MiB)) });
      expect(exactChunked.status, exactChunked.text).toBe(201);
      expectError(
        await call(t, "POST", "/v1/flags", { raw: chunked(paddedFlag("chunked-over", MiB + 1)) }),
        413,
        "payload_too_large",
      );
      expectError(
        await call(t, "PATCH", "/v1/flags/exists", { raw: chunked(`{"description":"${"x".repeat(3 * MiB)}"}`) }),
        413,
        "payload_too_large",
      );
      for (const key of ["over-1mib", "chunked-over"])
        expect((await call(t, "GET", `/v1/flags/${key}`)).status).toBe(404);
      // The connection and the server are still usable afterwards.
      expect((await call(t, "GET", "/v1/flags/exists")).status).toBe(200);
    });

    it("404 not_found for a path under /v1 that names nothing", async () => {
      for (const path of [
        "/v1",
        "/v1/",
        "/v1/nothing",
        "/v1/flags/exists/nothing",
        "/v1/flags/exists/evaluate/x",
        "/v1//flags",
        "/v1/FLAGS",
      ]) {
        expectError(await call(t, "GET", path), 404, "not_found");
      }
    });

    it("405 method_not_allowed with Allow for a known path (HEAD and OPTIONS included)", async () => {
      const cases: [string, string, string][] = [
        ["PUT", "/v1/flags", "GET, POST"],
        ["DELETE", "/v1/flags", "GET, POST"],
        ["PATCH", "/v1/flags", "GET, POST"],
        ["OPTIONS", "/v1/flags", "GET, POST"],
        ["POST", "/v1/flags/exists", "GET, PATCH, DELETE"],
        ["PUT", "/v1/flags/exists", "GET, PATCH, DELETE"],
        ["GET", "/v1/flags/exists/evaluate", "POST"],
        ["PUT", "/v1/flags/nobody/evaluate", "POST"],
      ];
      for (const [method, path, allow] of cases) {
        const reply = await call(t, method, path, method === "GET" ? {} : { json: { enabled: true } });
        expectError(reply, 405, "method_not_allowed");
        expect(reply.headers.get("allow"), `${method} ${path}`).toBe(allow);
      }
      const head = await call(t, "HEAD", "/v1/flags");
      expect(head.status).toBe(405);
      expect(head.headers.get("allow")).toBe("GET, POST");
      expect((await call(t, "GET", "/v1/flags/exists")).body.data.enabled).toBe(false);
    });

    it("leaves paths outside /v1 to the app, or answers them with a JSON 404", async () => {
      for (const path of ["/status", "/v10/flags", "/v1x"]) {
        const reply = await call(t, "GET", path, { key: null });
        if (t.app && path === "/status") {
          expect(reply.status).toBe(200);
          expect(reply.body).toEqual({ app: "ok" });
        } else if (t.app) {
          expect(reply.status).toBe(404);
          expect(reply.headers.get("ratelimit-limit")).toBeNull(); // flagpost did not answer it
        } else {
          expectError(reply, 404, "not_found");
        }
      }
    });
  });
}
