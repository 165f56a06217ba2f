import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "../../../src/ports/logger.js";
import type { Start, Target } from "../../support/frameworks.js";
import { call } from "./client.js";

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function capture(): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  return { logger: { info: at("info"), warn: at("warn"), error: at("error") }, lines };
}

/** `logRequests: true`: one line per request, never the key. */
export function loggingCases(start: Start): void {
  describe("request logging", () => {
    let t: Target;
    const { logger, lines } = capture();
    beforeAll(async () => {
      t = await start({ logger, http: { logRequests: true } });
    });
    afterAll(() => t.close());

    it("logs method, path, status and duration once per request, and never the Authorization header or key", async () => {
      const requests: [string, string, number, Parameters<typeof call>[3]][] = [
        ["POST", "/v1/flags", 201, { json: { key: "logged" } }],
        ["GET", "/v1/flags?limit=5", 200, {}],
        ["GET", "/v1/flags/logged", 200, {}],
        ["POST", "/v1/flags/logged/evaluate", 200, { json: { userId: "u1" } }],
        ["GET", "/v1/flags/missing", 404, {}],
        ["POST", "/v1/flags", 422, { json: { key: "-" } }],
        ["GET", "/v1/flags", 401, { key: null }],
        ["GET", "/v1/flags", 403, { key: "fp_wrong-key-with-a-secret-part-0000" }],
        ["DELETE", "/v1/flags/logged", 204, {}],
      ];
      for (const [method, path, status, options] of requests) {
        expect((await call(t, method, path, options)).status).toBe(status);
      }
      const requestLines = lines.filter((l) => l.msg === "request");
      expect(requestLines).toHaveLength(requests.length);
      requestLines.forEach((line, i) => {
        const [method, path, status] = requests[i]!;
        expect(line.level).toBe("info");
        expect(line.fields).toMatchObject({ method, path: path.split("?")[0], status });
        expect(typeof line.fields.duration_ms).toBe("number");
        expect(line.fields.duration_ms as number).toBeGreaterThanOrEqual(0);
      });
      const everything = JSON.stringify(lines);
      for (const secret of [t.key, "Bearer", "authorization", "fp_wrong-key", "limit=5"])
        expect(everything).not.toContain(secret);
    });
  });

  describe("request logging off (the default)", () => {
    let t: Target;
    const { logger, lines } = capture();
    beforeAll(async () => {
      t = await start({ logger });
    });
    afterAll(() => t.close());

    it("logs nothing for ordinary requests", async () => {
      await call(t, "GET", "/v1/flags");
      await call(t, "GET", "/v1/flags/none");
      expect(lines).toEqual([]);
    });
  });
}
