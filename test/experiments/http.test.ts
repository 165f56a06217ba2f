import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, detailPaths, expectError } from "../http/cases/client.js";
import { type Target, VARIANTS } from "../support/frameworks.js";

// GET /v1/experiments/{id}/results over real HTTP: shape, scope, and errors per the contract.

describe("GET /v1/experiments/{id}/results", () => {
  let t: Target;
  beforeAll(async () => {
    t = await VARIANTS.node.start();
    await t.fp.flags.create({
      key: "checkout",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "treatment", weight: 50 },
      ],
    });
    const events = [];
    for (let i = 0; i < 40; i++) {
      const userId = `u${i}`;
      const variant = t.fp.getVariant("checkout", { userId })!;
      events.push({
        event: "$exposure",
        userId,
        timestamp: "2026-01-01T00:00:00Z",
        properties: { experimentId: "checkout", variant },
      });
      if (i % 3 === 0)
        events.push({
          event: "purchase",
          userId,
          timestamp: "2026-01-01T00:01:00Z",
          properties: { revenue: 10 + i, currency: "EUR" },
        });
    }
    events.push({
      event: "$exposure",
      userId: "tagged",
      timestamp: "2026-01-01T00:00:00Z",
      properties: { experimentId: "from-events", variant: "b" },
    });
    const stored = await call(t, "POST", "/v1/events/batch", { json: { events } });
    expect(stored.status, stored.text).toBe(202);
  });
  afterAll(() => t.close());

  it("answers {data} with users, rates, comparisons and SRM", async () => {
    const reply = await call(t, "GET", "/v1/experiments/checkout/results?metric=purchase");
    expect(reply.status, reply.text).toBe(200);
    expect(Object.keys(reply.body)).toEqual(["data"]);
    const data = reply.body.data;
    expect(data).toMatchObject({ experimentId: "checkout", metric: "purchase", control: "control", excludedUsers: 0 });
    expect(data.variants.map((v: { key: string }) => v.key)).toEqual(["control", "treatment"]);
    expect(data.variants.reduce((sum: number, v: { users: number }) => sum + v.users, 0)).toBe(40);
    expect(data.variants.reduce((sum: number, v: { conversions: number }) => sum + v.conversions, 0)).toBe(14);
    expect(data.variants[0].vsControl).toBeNull();
    expect(Object.keys(data.variants[1].vsControl.conversionRate).sort()).toEqual([
      "chanceToBeatControl",
      "difference",
      "differenceCI95",
      "pValue",
      "relativeUplift",
    ]);
    expect(Object.keys(data.srm).sort()).toEqual(["chiSquare", "degreesOfFreedom", "detected", "pValue"]);

    const swapped = await call(t, "GET", "/v1/experiments/checkout/results?metric=purchase&control=treatment");
    expect(swapped.body.data.control).toBe("treatment");
    expect(swapped.body.data.variants[0].vsControl.conversionRate.difference).toBeCloseTo(
      -data.variants[1].vsControl.conversionRate.difference,
      12,
    );

    const windowed = await call(
      t,
      "GET",
      "/v1/experiments/checkout/results?metric=purchase&from=2026-01-01T00:00:30Z&to=2026-01-02T00:00:00Z",
    );
    expect(windowed.body.data.variants.every((v: { users: number }) => v.users === 0)).toBe(true);
  });

  it("works for an experiment known only from events, with equal SRM weights", async () => {
    const reply = await call(t, "GET", "/v1/experiments/from-events/results?metric=purchase");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data).toMatchObject({
      control: "b",
      variants: [{ key: "b", weight: null, users: 1, conversions: 0 }],
      srm: { pValue: null, detected: false },
    });
  });

  it("refuses bad queries with 422 naming the field, unknown experiments with 404, and needs events:read", async () => {
    const cases: [string, string[]][] = [
      ["", ["metric"]],
      ["?metric=", ["metric"]],
      ["?metric=purchase&control=nobody", ["control"]],
      ["?metric=purchase&from=yesterday", ["from"]],
      ["?metric=purchase&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", ["from"]],
      ["?metric=purchase&limit=5", ["limit"]],
      ["?metric=a&metric=b", ["metric"]],
    ];
    for (const [query, paths] of cases) {
      const reply = await call(t, "GET", `/v1/experiments/checkout/results${query}`);
      expectError(reply, 422, "validation_error");
      expect(detailPaths(reply), query).toEqual(paths);
    }
    expectError(await call(t, "GET", "/v1/experiments/nothing-here/results?metric=purchase"), 404, "not_found");
    const writer = await t.fp.keys.create({ name: "w", scopes: ["events:write", "flags:read"] });
    expectError(
      await call(t, "GET", "/v1/experiments/checkout/results?metric=purchase", { key: writer.key }),
      403,
      "restricted_api_key",
    );
    const reader = await t.fp.keys.create({ name: "r", scopes: ["events:read"] });
    expect((await call(t, "GET", "/v1/experiments/checkout/results?metric=purchase", { key: reader.key })).status).toBe(
      200,
    );
    expectError(
      await call(t, "GET", "/v1/experiments/checkout/results?metric=purchase", { key: null }),
      401,
      "missing_api_key",
    );
  });
});
