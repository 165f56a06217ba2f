import { describe, expect, it } from "vitest";
import { errorFields, jsonLogger } from "../src/internal.js";

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
});
