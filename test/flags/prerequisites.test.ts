import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { evaluate, type SnapshotFlag } from "../../src/flags/evaluation/index.js";
import { FlagClient } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";

// Prerequisites beyond the shared fixtures: what only a snapshot can hold (a missing flag, a
// cycle from data written elsewhere), and a snapshot kept linked as flags change.

const on = (flagKey: string) => ({ flagKey, enabled: true });
const flag = (key: string, fields: Partial<SnapshotFlag> = {}): SnapshotFlag => ({
  key,
  enabled: true,
  rules: [],
  ...fields,
});

describe("prerequisites in the compiled snapshot", () => {
  it("treats a prerequisite missing from the snapshot as unmet, as evaluate() does", () => {
    const { client, feed } = FlagClient.create();
    const f = flag("f", { prerequisites: [{ flagKey: "gone", enabled: false }] });
    feed.replace([f]);
    const expected = { enabled: false, reason: "prerequisite_failed" };
    expect(client.evaluate("f")).toEqual(expected);
    expect(evaluate(f, {}, () => undefined)).toEqual(expected);
    expect(evaluate(f, {})).toEqual(expected);
  });

  it("treats a prerequisite that leads back into a cycle as unmet, without looping", () => {
    const flags = [flag("a", { prerequisites: [on("b")] }), flag("b", { prerequisites: [on("a")] })];
    const { client, feed } = FlagClient.create();
    feed.replace(flags);
    const byKey = new Map(flags.map((f) => [f.key, f]));
    for (const key of ["a", "b"]) {
      expect(client.evaluate(key)).toEqual({ enabled: false, reason: "prerequisite_failed" });
      expect(evaluate(byKey.get(key)!, {}, (k) => byKey.get(k))).toEqual(client.evaluate(key));
    }
  });

  it("treats a prerequisite that cannot be compiled as unmet, whichever answer is required", () => {
    const { client, feed } = FlagClient.create();
    feed.replace([
      flag("broken", { rules: [{ type: "nope" } as never] }),
      flag("on", { prerequisites: [on("broken")] }),
      flag("off", { prerequisites: [{ flagKey: "broken", enabled: false }] }),
    ]);
    expect(client.evaluate("on").reason).toBe("prerequisite_failed");
    expect(client.evaluate("off").reason).toBe("prerequisite_failed");
    expect(client.evaluate("broken").reason).toBe("error");
  });

  it("re-links dependents when a prerequisite changes, arrives or goes", () => {
    const { client, feed } = FlagClient.create();
    feed.replace([flag("f", { prerequisites: [on("p")] })]);
    expect(client.isEnabled("f")).toBe(false);
    feed.upsert(flag("p"));
    expect(client.isEnabled("f")).toBe(true);
    feed.upsert(flag("p", { enabled: false }));
    expect(client.evaluate("f")).toEqual({ enabled: false, reason: "prerequisite_failed" });
    feed.upsert(flag("p"));
    feed.remove("p");
    expect(client.isEnabled("f", { default: true })).toBe(false);
  });

  it("answers a flag re-entered from an attribute getter correctly, both times", () => {
    const { client, feed } = FlagClient.create();
    feed.replace([
      flag("p", { rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }] }),
      flag("f", { prerequisites: [on("p")] }),
    ]);
    let inner: boolean | undefined;
    const attributes = {
      get plan() {
        inner ??= client.isEnabled("f", { attributes: { plan: "free" } });
        return "pro";
      },
    };
    expect(client.isEnabled("f", { attributes })).toBe(true);
    expect(inner).toBe(false);
  });

  it("is what isEnabled, getVariant and fp.flags.evaluate answer in a flagpost instance", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    try {
      await fp.flags.create({ key: "gate", enabled: true, rules: [{ type: "users", userIds: ["in"] }] });
      await fp.flags.create({
        key: "split",
        enabled: true,
        prerequisites: [on("gate")],
        variants: [
          { key: "a", weight: 50 },
          { key: "b", weight: 50 },
        ],
      });
      expect(fp.isEnabled("split", { userId: "out" })).toBe(false);
      expect(fp.getVariant("split", { userId: "out", default: "none" })).toBe("none");
      expect(await fp.flags.evaluate("split", { userId: "out" })).toEqual({
        enabled: false,
        reason: "prerequisite_failed",
      });
      expect(fp.isEnabled("split", { userId: "in" })).toBe(true);
      const stored = await fp.flags.evaluate("split", { userId: "in" });
      expect(stored).toMatchObject({ enabled: true, reason: "no_rules" });
      expect(fp.getVariant("split", { userId: "in" })).toBe(stored.variant);
    } finally {
      await fp.close();
    }
  });
});
