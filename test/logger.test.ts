import { Console } from "node:console";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createHandler } from "../adapters/http/index.js";
import { createFlagpost } from "../src/flagpost.js";
import { errorFields, jsonLogger } from "../src/ports/logger.js";
import { memoryStorage } from "../src/memory/index.js";

/** A stream that keeps what was written, line by line. */
function lines(): { stream: Writable; lines: string[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((l) => l !== ""),
      );
      done();
    },
  });
  return { stream, lines: out };
}

const GET_FLAGS = {
  method: "GET",
  path: "/v1/flags",
  query: new URLSearchParams(),
  headers: {},
  body: { kind: "none" as const },
};

describe("logging", () => {
  it("masks passwords inside URLs in logged error messages and never logs a stack", () => {
    const error = new Error("connect ECONNREFUSED postgres://app:s3cr3t@db:5432/prod and mysql://root:hunter2@x/y");
    const fields = errorFields(error);
    expect(fields.message).toBe("connect ECONNREFUSED postgres://app:***@db:5432/prod and mysql://root:***@x/y");
    expect(JSON.stringify(fields)).not.toContain("    at ");
  });

  it("leaves URLs without a password alone", () => {
    expect(errorFields(new Error("GET http://host:3000/v1 failed")).message).toBe("GET http://host:3000/v1 failed");
  });

  it("writes one JSON object per line and respects the level", () => {
    const lines: string[] = [];
    const logger = jsonLogger((line) => lines.push(line), "warn");
    logger.info("hidden");
    logger.warn("shown", { n: 1 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "warn", msg: "shown", n: 1 });
    expect(lines[0]!.endsWith("\n")).toBe(true);
  });

  it("takes a pino logger as it is: message and fields land in pino's own fields", async () => {
    const out = lines();
    const logger = pino({ level: "info", base: null }, out.stream);
    const fp = createFlagpost({ storage: memoryStorage(), logger });
    await fp.ready();
    fp.logger.warn("something to see", { flag: "beta", count: 2 });
    const handle = createHandler(fp, { logRequests: true, logger, dashboard: false });
    expect((await handle(GET_FLAGS))?.status).toBe(401);
    await fp.close();
    const parsed = out.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed).toContainEqual(
      expect.objectContaining({ level: 40, msg: "something to see", flag: "beta", count: 2 }),
    );
    expect(parsed).toContainEqual(
      expect.objectContaining({ level: 30, msg: "request", method: "GET", path: "/v1/flags", status: 401 }),
    );
  });

  it("takes console as it is: the message, then the fields", async () => {
    const out = lines();
    const logger = new Console({ stdout: out.stream, stderr: out.stream });
    const fp = createFlagpost({ storage: memoryStorage(), logger });
    await fp.ready();
    fp.logger.error("it broke", { code: "E1" });
    await fp.close();
    expect(out.lines).toContain("it broke { code: 'E1' }");
  });
});
