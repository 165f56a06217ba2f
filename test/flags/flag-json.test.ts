import { describe, expect, it } from "vitest";
import { parseSnapshot } from "../../src/flags/client/snapshot.js";
import { flagJson } from "../../src/flags/index.js";
import type { Flag } from "../../src/flags/index.js";

const flag: Flag = {
  id: "0190aaaa-0000-7000-8000-000000000001",
  key: "checkout",
  description: "",
  enabled: true,
  rules: [],
  variants: [],
  prerequisites: [],
  createdAt: Date.parse("1969-12-31T23:59:59.999Z"),
  updatedAt: Date.parse("2026-06-01T10:00:00.123Z"),
};

describe("a flag's times at the wire", () => {
  it("are ISO 8601 in the wire form, every other field and the field order kept", () => {
    const wire = flagJson(flag);
    expect(wire).toEqual({ ...flag, createdAt: "1969-12-31T23:59:59.999Z", updatedAt: "2026-06-01T10:00:00.123Z" });
    expect(Object.keys(wire)).toEqual(Object.keys(flag));
  });

  it("come back as epoch milliseconds from a snapshot body, and an unreadable one is left out", () => {
    const odd = { ...flagJson(flag), key: "odd", updatedAt: "yesterday" };
    const [read, readOdd] = parseSnapshot({ data: { flags: [flagJson(flag), odd] } });
    expect(read).toEqual(flag);
    expect(readOdd).toEqual({ ...flag, key: "odd", updatedAt: undefined });
    expect(readOdd).not.toHaveProperty("updatedAt");
  });
});
