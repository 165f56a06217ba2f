import { OpenFeature } from "@openfeature/server-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FlagpostProvider } from "../../adapters/openfeature/index.js";
import { evaluate } from "../../src/flags/evaluation/index.js";
import type { EvaluationResult } from "../../src/flags/index.js";
import { FlagClient } from "../../src/flags/client/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { bucketCases, type EvaluationCase, evaluationCases, prerequisiteCases } from "./fixtures/index.js";

// The shared fixtures through all four evaluators: the pure evaluate() (with a lookup for
// prerequisites), the in-process FlagClient (isEnabled, evaluate, and snapshotEvaluate, which the
// HTTP route answers from), the HTTP evaluate route of a real server, and the OpenFeature provider
// through the real SDK.
// Each must give the fixture's answer on every case. The golden buckets become cases too: each
// user just outside and just inside a rollout at its bucket, for ASCII and non-ASCII ids.

const goldenCases: EvaluationCase[] = bucketCases.flatMap((c) => [
  {
    name: `golden bucket ${c.flagKey}:${c.userId} (${c.bucket}) is outside ${c.bucket / 100}%`,
    flag: { key: c.flagKey, enabled: true, rules: [{ type: "percentage" as const, percentage: c.bucket / 100 }] },
    context: { userId: c.userId },
    expected: { enabled: false, reason: "no_rule_match" as const },
  },
  {
    name: `golden bucket ${c.flagKey}:${c.userId} (${c.bucket}) is inside ${(c.bucket + 1) / 100}%`,
    flag: { key: c.flagKey, enabled: true, rules: [{ type: "percentage" as const, percentage: (c.bucket + 1) / 100 }] },
    context: { userId: c.userId },
    expected: { enabled: true, reason: "rule_match" as const, ruleIndex: 0 },
  },
]);

const cases = [...evaluationCases, ...goldenCases, ...prerequisiteCases].map((c) => [c.name, c] as const);

/** The case's flags, prerequisites first, then the flag evaluated. */
const allFlags = (c: EvaluationCase) => [...(c.flags ?? []), c.flag];

describe("evaluate() (pure)", () => {
  it.each(cases)("%s", (_name, c) => {
    const byKey = new Map(allFlags(c).map((f) => [f.key, f]));
    expect(evaluate(c.flag, c.context, (key) => byKey.get(key))).toEqual(c.expected);
  });
});

describe("FlagClient (in-process snapshot)", () => {
  it.each(cases)("%s", (_name, c) => {
    const { client, feed } = FlagClient.create();
    feed.replace(allFlags(c));
    expect(client.evaluate(c.flag.key, c.context)).toEqual(c.expected);
    expect(client.snapshotEvaluate(c.flag.key, c.context)).toEqual(c.expected);
    expect(client.isEnabled(c.flag.key, c.context)).toBe(c.expected.enabled);
    expect(client.isEnabled(c.flag.key, { ...c.context, default: !c.expected.enabled })).toBe(c.expected.enabled);
  });
});

/** Deletes the previous case's flags: dependents go in earlier passes, since a flag still listed cannot be deleted. */
async function deleteEveryFlag(app: TestApp): Promise<void> {
  for (let pass = 0; pass < 12; pass++) {
    const left = await app.fp.flags.all();
    if (left.length === 0) return;
    for (const flag of left) await app.fp.flags.delete(flag.key).catch(() => undefined);
  }
  throw new Error("flags left after 12 passes");
}

describe("POST /v1/flags/{key}/evaluate (real server)", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ http: { rateLimit: false } });
  });
  afterAll(async () => app.close());

  it.each(cases)("%s", async (_name, c) => {
    await deleteEveryFlag(app);
    for (const flag of allFlags(c)) await app.fp.flags.create(flag);
    const response = await app.call("POST", `/v1/flags/${encodeURIComponent(c.flag.key)}/evaluate`, c.context);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: c.expected });
  });
});

describe("FlagpostProvider through the OpenFeature SDK", () => {
  afterAll(async () => OpenFeature.close());

  /** What OpenFeature reports for each flagpost result. */
  function expectedFor(c: EvaluationCase): { value: boolean; reason: string; ruleIndex?: number } {
    const r: EvaluationResult = c.expected;
    const ruleType = r.ruleIndex === undefined ? undefined : c.flag.rules[r.ruleIndex]!.type;
    const reason = {
      disabled: "DISABLED",
      prerequisite_failed: "PREREQUISITE_FAILED",
      no_rules: "STATIC",
      no_rule_match: "DEFAULT",
      rule_match: ruleType === "percentage" ? "SPLIT" : "TARGETING_MATCH",
    }[r.reason];
    return r.ruleIndex === undefined
      ? { value: r.enabled, reason }
      : { value: r.enabled, reason, ruleIndex: r.ruleIndex };
  }

  let domain = 0;
  it.each(cases)("%s", async (_name, c) => {
    const { client: flagClient, feed } = FlagClient.create();
    feed.replace(allFlags(c));
    const name = `fixtures-${++domain}`;
    await OpenFeature.setProviderAndWait(name, new FlagpostProvider(flagClient));
    const context = {
      ...c.context.attributes,
      ...(c.context.userId === undefined ? {} : { targetingKey: c.context.userId }),
    };
    const details = await OpenFeature.getClient(name).getBooleanDetails(
      c.flag.key,
      !c.expected.enabled,
      context as never,
    );
    const ruleIndex = details.flagMetadata.ruleIndex as number | undefined;
    expect({ value: details.value, reason: details.reason, ...(ruleIndex === undefined ? {} : { ruleIndex }) }).toEqual(
      expectedFor(c),
    );
    expect(details.errorCode).toBeUndefined();
  });
});
