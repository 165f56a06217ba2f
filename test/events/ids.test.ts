import { describe, expect, it } from "vitest";
import { UUID_PATTERN, uuidv7 } from "../../src/ids.js";

/** The 48-bit millisecond time at the front of a UUIDv7 (RFC 9562 §5.7). */
const msOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);

describe("uuidv7", () => {
  it("is lower-case 8-4-4-4-12 text with version 7, the RFC variant and the given time", () => {
    const at = Date.UTC(2026, 10, 26, 6, 30, 0, 123);
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7(at + i * 1_000);
      expect(id).toMatch(UUID_PATTERN);
      expect(id[14]).toBe("7");
      expect(["8", "9", "a", "b"]).toContain(id[19]);
      expect(msOf(id)).toBe(at + i * 1_000);
    }
  });

  it("increases strictly within one millisecond and when the clock steps back", () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = [uuidv7(at)];
    for (let i = 0; i < 5000; i++) ids.push(uuidv7(i % 2 === 0 ? at : at - 10_000));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it("spells the same bytes that Node's hex encoding gives", () => {
    const id = uuidv7();
    const hex = id.replaceAll("-", "");
    expect(Buffer.from(hex, "hex").toString("hex")).toBe(hex);
    expect(id.split("-").map((part) => part.length)).toEqual([8, 4, 4, 4, 12]);
  });
});
