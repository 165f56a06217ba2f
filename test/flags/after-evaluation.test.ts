import { describe, expect, it } from "vitest";
import { FlagClient } from "../../src/flags/client/index.js";
import type { AfterEvaluation } from "../../src/flags/client/after-evaluation.js";
import { isOn } from "../../src/flags/client/decision.js";
import { ExposureRecorder } from "../../src/flags/client/exposures.js";
import { silentLogger } from "../../src/ports/logger.js";

const beta = { key: "beta", enabled: true, rules: [{ type: "users" as const, userIds: ["u1"] }] };

interface Seen {
  key: string;
  userId: string | undefined;
  attributes: Record<string, unknown> | undefined;
  enabled: boolean;
  variantIndex: number;
  forCaller: boolean;
}

function recording(): { seen: Seen[]; listener: AfterEvaluation } {
  const seen: Seen[] = [];
  const listener: AfterEvaluation = (flag, userId, attributes, outcome, variantIndex, forCaller) => {
    seen.push({ key: flag.key, userId, attributes, enabled: isOn(outcome), variantIndex, forCaller });
  };
  return { seen, listener };
}

describe("the flag client's after-evaluation listeners", () => {
  it("see each evaluation with its key, context and decision, and whether the caller asked for itself", () => {
    const { seen, listener } = recording();
    const { client, feed } = FlagClient.create({ afterEvaluation: [listener] });
    feed.replace([beta]);
    expect(client.isEnabled("beta", { userId: "u1", attributes: { plan: "pro" } })).toBe(true);
    expect(client.evaluate("beta", { userId: "u2" }).enabled).toBe(false);
    expect(client.getValue("beta", { userId: "u1" }, 0)).toBe(0);
    client.snapshotEvaluate("beta", {});
    client.isEnabled("unknown", { userId: "u1" });
    expect(seen).toEqual([
      { key: "beta", userId: "u1", attributes: { plan: "pro" }, enabled: true, variantIndex: -1, forCaller: true },
      { key: "beta", userId: "u2", attributes: undefined, enabled: false, variantIndex: -1, forCaller: true },
      { key: "beta", userId: "u1", attributes: undefined, enabled: true, variantIndex: -1, forCaller: true },
      { key: "beta", userId: undefined, attributes: undefined, enabled: false, variantIndex: -1, forCaller: false },
    ]);
  });

  it("carry the insights counts and exposures as their first entries", () => {
    const events: unknown[] = [];
    const exposures = new ExposureRecorder(
      { enqueue: (event) => events.push(event) },
      { clock: { now: () => 0 }, logger: silentLogger },
    );
    const { seen, listener } = recording();
    const { client, feed } = FlagClient.create({ exposures, afterEvaluation: [listener] });
    feed.replace([beta]);
    client.isEnabled("beta", { userId: "u1" });
    client.snapshotEvaluate("beta", { userId: "u3" });
    exposures.flush();
    expect(events).toEqual([
      expect.objectContaining({ userId: "u1", properties: expect.objectContaining({ flagKey: "beta" }) }),
    ]);
    expect(client.takeCounts()).toEqual([
      expect.objectContaining({ flagKey: "beta", enabled: false, count: 1 }),
      expect.objectContaining({ flagKey: "beta", enabled: true, count: 1 }),
    ]);
    expect(seen).toHaveLength(2);
  });

  it("that throw break neither the evaluation nor the listeners after them, and are counted and logged", () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const { seen, listener } = recording();
    const throwing: AfterEvaluation = () => {
      throw new Error("listener bug");
    };
    const { client, feed } = FlagClient.create({ logger, afterEvaluation: [throwing, listener] });
    feed.replace([beta]);
    expect(client.isEnabled("beta", { userId: "u1" })).toBe(true);
    expect(client.getValue("beta", { userId: "u1" }, "d")).toBe("d");
    expect(client.evaluate("beta", { userId: "u2" })).toEqual({ enabled: false, reason: "no_rule_match" });
    expect(seen.map((s) => s.userId)).toEqual(["u1", "u1", "u2"]);
    expect(client.listenerErrorCount).toBe(3);
    expect(client.errorCount).toBe(0);
    expect(warnings).toEqual(["an after-evaluation listener failed"]);
    expect(client.takeCounts().reduce((sum, c) => sum + c.count, 0)).toBe(3);
  });
});
