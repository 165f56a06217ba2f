import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { FlagRecord } from "../../../src/ports/storage/flags.js";
import { inputProblem, MAX_NESTING_DEPTH } from "../../../src/input-policy.js";
import type { NewEvent } from "../../../src/ports/storage/events.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

const AT = "2026-01-02T03:04:05.006Z";

/** Every kind of text the input rules (src/input-policy.ts) let through, in one string. */
const HARD_TEXT =
  'tab\t nl\n bell\u0007 del\u007f U+FFFF\uffff U+FFFE\ufffe BOM\ufeff astral😀𝄞 rtl\u202e quote" backslash\\ ü三';

/** `levels` nested objects, the innermost holding HARD_TEXT. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { text: HARD_TEXT };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/**
 * The other half of the input rules: whatever they accept, every backend stores and gives back
 * exactly (no U+FFFD, no dropped key, no truncated depth). The refusals themselves are checked
 * over HTTP on every backend in test/reliability/bad-input.test.ts.
 */
export function textFidelityCases(harness: StorageHarness): void {
  describe("text the input rules accept", () => {
    const storage = useStorage(harness);

    it("is accepted by the input rules (the premise of these cases)", () => {
      expect(inputProblem({ description: HARD_TEXT, properties: nested(MAX_NESTING_DEPTH - 1) })).toBeUndefined();
    });

    it("round-trips in a flag's description and rules", async () => {
      const rules: FlagRecord["rules"] = [
        { type: "users", userIds: [HARD_TEXT] },
        {
          type: "attribute",
          attribute: "constructor",
          operator: "in",
          value: [HARD_TEXT, 5e-324, 1.7976931348623157e308],
        },
      ];
      const flag: FlagRecord = {
        id: "00000000-0000-7000-8000-000000000001",
        key: "text",
        description: HARD_TEXT,
        enabled: true,
        rules,
        variants: [],
        prerequisites: [],
        createdAt: Date.parse(AT),
        updatedAt: Date.parse(AT),
      };
      await flagWrites(storage()).insert(flag);
      expect(await storage().flags.get("text")).toEqual(flag);
    });

    it("round-trips in event names and in properties nested to the depth bound", async () => {
      const properties = { constructor: HARD_TEXT, toString: 1, deep: nested(MAX_NESTING_DEPTH - 2) };
      const event: NewEvent = {
        id: "00000000-0000-7000-8000-000000000002",
        event: "e😀",
        userId: "u\u00a0三",
        timestamp: Date.parse(AT),
        receivedAt: Date.parse(AT),
        propertiesJson: JSON.stringify(properties),
      };
      await storage().events.appendEvents([event]);
      const [stored] = await storage().events.queryEvents({}, undefined, 10);
      expect(stored).toEqual({
        id: event.id,
        event: event.event,
        userId: event.userId,
        timestamp: Date.parse(AT),
        receivedAt: Date.parse(AT),
        properties,
      });
    });
  });
}
