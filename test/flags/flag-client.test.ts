import { describe, expect, it } from "vitest";
import { createFlagpost } from "../../src/flagpost.js";
import { FlagClient, type FlagClientEvent, type FlagContext } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { SnapshotFlag } from "../../src/flags/evaluation/index.js";
import { silentLogger } from "../../src/ports/logger.js";

const beta = { key: "beta", enabled: true, rules: [{ type: "users" as const, userIds: ["u1"] }] };

function loaded(flags: SnapshotFlag[] = [beta]) {
  const { client, feed } = FlagClient.create();
  feed.replace(flags);
  return { client, feed };
}

describe("FlagClient before the first snapshot", () => {
  it("answers the default with reason error, and ready() waits for the first load", async () => {
    const { client, feed } = FlagClient.create();
    expect(client.status).toBe("not_ready");
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(false);
    expect(client.isEnabled("beta", { userId: "u1", default: true })).toBe(true);
    expect(client.evaluate("beta", { userId: "u1", default: true })).toEqual({
      enabled: true,
      reason: "error",
      errorMessage: expect.stringMatching(/not ready/),
    });
    let ready = false;
    const waiting = client.ready().then(() => (ready = true));
    await Promise.resolve();
    expect(ready).toBe(false);
    feed.replace([beta]);
    await waiting;
    expect(client.status).toBe("ready");
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
  });

  it("rejects ready() when the source fails for good, and later calls too", async () => {
    const { client, feed } = FlagClient.create();
    const waiting = client.ready();
    feed.fail(new Error("refused"));
    await expect(waiting).rejects.toThrow("refused");
    await expect(client.ready()).rejects.toThrow("refused");
    expect(client.status).toBe("failed");
  });

  it("rejects only the current waiters on rejectWaiting (a start-up timeout)", async () => {
    const { client, feed } = FlagClient.create();
    const first = client.ready();
    feed.rejectWaiting(new Error("slow"));
    await expect(first).rejects.toThrow("slow");
    const second = client.ready();
    feed.replace([]);
    await expect(second).resolves.toBeUndefined();
  });
});

describe("FlagClient answers", () => {
  it("unknown flags with the default and reason flag_not_found", () => {
    const { client } = loaded();
    expect(client.isEnabled("nope")).toBe(false);
    expect(client.isEnabled("nope", { default: true })).toBe(true);
    expect(client.evaluate("nope", { default: true })).toEqual({ enabled: true, reason: "flag_not_found" });
  });

  it("a disabled flag with false, not the default (only unknown flags and failures give the default)", () => {
    const { client } = loaded([{ ...beta, enabled: false }]);
    expect(client.isEnabled("beta", { userId: "u1", default: true })).toBe(false);
    expect(client.evaluate("beta", { default: true })).toEqual({ enabled: false, reason: "disabled" });
  });

  it("a flag it cannot compile (a rule kind from a newer version) with the default and reason error", () => {
    const { client } = loaded([{ key: "future", enabled: true, rules: [{ type: "geo", country: "FR" } as never] }]);
    expect(client.isEnabled("future", { userId: "u1", default: true })).toBe(true);
    expect(client.evaluate("future", { default: false })).toEqual({
      enabled: false,
      reason: "error",
      errorMessage: expect.stringMatching(/unknown rule type "geo"/),
    });
  });

  it("never throws, whatever the context", () => {
    const { client } = loaded([
      beta,
      {
        key: "plan",
        enabled: true,
        rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }],
      },
    ]);
    const hostile = [
      null,
      undefined,
      42,
      "u1",
      { userId: 42 },
      { userId: null, attributes: null },
      { attributes: "pro" },
      { attributes: [1, 2] },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("boom");
          },
        },
      ),
      {
        userId: "u1",
        get attributes(): Record<string, unknown> {
          throw new Error("boom");
        },
      },
      {
        attributes: new Proxy(
          {},
          {
            has: () => {
              throw new Error("boom");
            },
            get: () => {
              throw new Error("boom");
            },
            getOwnPropertyDescriptor: () => {
              throw new Error("boom");
            },
          },
        ),
      },
    ] as unknown as FlagContext[];
    for (const context of hostile) {
      for (const key of ["beta", "plan", "nope", undefined, 7] as unknown as string[]) {
        expect(() => client.isEnabled(key, context)).not.toThrow();
        expect(() => client.evaluate(key, context)).not.toThrow();
        expect(typeof client.isEnabled(key, context)).toBe("boolean");
      }
    }
    // A throwing attribute read is a failure: the default, reason error, and it is counted.
    const context = {
      userId: "x",
      attributes: new Proxy(
        {},
        {
          getOwnPropertyDescriptor: () => {
            throw new Error("boom");
          },
        },
      ),
    };
    expect(client.isEnabled("plan", { ...context, default: true })).toBe(true);
    expect(client.evaluate("plan", context)).toEqual({ enabled: false, reason: "error", errorMessage: "boom" });
    expect(client.errorCount).toBeGreaterThan(0);
  });

  it("a userId that is not a string counts as missing", () => {
    const { client } = loaded([{ key: "all", enabled: true, rules: [{ type: "percentage", percentage: 100 }] }]);
    expect(client.isEnabled("all", { userId: "7" })).toBe(true);
    expect(client.isEnabled("all", { userId: 7 as unknown as string })).toBe(false);
  });
});

describe("FlagClient snapshots and events", () => {
  it("swaps whole snapshots and reports the keys that changed", () => {
    const { client, feed } = loaded([beta, { key: "old", enabled: true, rules: [] }]);
    const events: FlagClientEvent[] = [];
    client.subscribe((event) => events.push(event));
    feed.replace([beta, { key: "new", enabled: false, rules: [] }]);
    expect(events).toEqual([{ type: "changed", keys: ["new", "old"] }]);
    expect(client.keys()).toEqual(["beta", "new"]);
    feed.replace([
      { ...beta, rules: [{ type: "users", userIds: ["u2"] }] },
      { key: "new", enabled: false, rules: [] },
    ]);
    expect(events.at(-1)).toEqual({ type: "changed", keys: ["beta"] });
    expect(client.isEnabled("beta", { userId: "u2" })).toBe(true);
    feed.replace([
      { ...beta, rules: [{ type: "users", userIds: ["u2"] }] },
      { key: "new", enabled: false, rules: [] },
    ]);
    expect(events).toHaveLength(2); // nothing changed: no event
  });

  it("applies single writes, goes stale and comes back", () => {
    const { client, feed } = loaded();
    const events: FlagClientEvent[] = [];
    client.subscribe((event) => events.push(event));
    feed.upsert({ key: "x", enabled: true, rules: [] });
    feed.remove("beta");
    feed.remove("never-there");
    expect(client.keys()).toEqual(["x"]);
    feed.stale(new Error("db down"));
    feed.stale(new Error("db still down"));
    expect(client.status).toBe("stale");
    expect(client.isEnabled("x")).toBe(true); // the last snapshot is still served
    feed.fresh();
    expect(events).toEqual([
      { type: "changed", keys: ["x"] },
      { type: "changed", keys: ["beta"] },
      { type: "stale", message: "db down" },
      { type: "ready" },
    ]);
  });

  it("keeps the snapshot a listener sees consistent when the listener throws", () => {
    const { client, feed } = loaded();
    client.subscribe(() => {
      throw new Error("faulty listener");
    });
    expect(() => feed.upsert({ key: "x", enabled: true, rules: [] })).not.toThrow();
    expect(client.isEnabled("x")).toBe(true);
  });
});

describe("fp.isEnabled (in process)", () => {
  it("answers the default before ready(), then from the snapshot; a write is visible at once", async () => {
    const storage = memoryStorage();
    const writer = createFlagpost({ storage, logger: silentLogger });
    await writer.ready();
    await writer.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });

    const fp = createFlagpost({ storage, logger: silentLogger });
    expect(fp.isEnabled("beta", { userId: "u1" })).toBe(false);
    expect(fp.flagClient.evaluate("beta", { userId: "u1" }).reason).toBe("error");
    await fp.ready();
    expect(fp.isEnabled("beta", { userId: "u1" })).toBe(true);

    // Writes through this instance's store reach its snapshot before the write's promise resolves.
    await fp.flags.update("beta", { rules: [{ type: "users", userIds: ["u2"] }] });
    expect(fp.isEnabled("beta", { userId: "u1" })).toBe(false);
    expect(fp.isEnabled("beta", { userId: "u2" })).toBe(true);
    await fp.flags.create({ key: "fresh", enabled: true });
    expect(fp.flagClient.evaluate("fresh")).toEqual({ enabled: true, reason: "no_rules" });
    await fp.flags.delete("fresh");
    expect(fp.flagClient.evaluate("fresh")).toEqual({ enabled: false, reason: "flag_not_found" });
    await fp.close();
    await writer.close();
  });

  it("records exposures as $exposure events in storage through fp.events, once per user, flag and result", async () => {
    const storage = memoryStorage();
    const fp = createFlagpost({ storage, logger: silentLogger, exposures: { enabled: true } });
    await fp.ready();
    await fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    for (let i = 0; i < 5; i++) fp.isEnabled("beta", { userId: "u1" });
    fp.isEnabled("beta", { userId: "u2" });
    fp.isEnabled("missing", { userId: "u1" }); // unknown flags are not exposures
    await fp.close(); // flushes the exposure buffer into the tracker, then the tracker into storage

    const stored = await storage.events.queryEvents({ event: "$exposure" }, undefined, 10);
    const seen = stored.map((e) => [e.userId, e.properties.flagKey, e.properties.enabled, e.properties.reason]).sort();
    expect(seen).toEqual([
      ["u1", "beta", true, "rule_match"],
      ["u2", "beta", false, "no_rule_match"],
    ]);
  });
});
