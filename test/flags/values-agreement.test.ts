import { type EvaluationContext, type JsonValue, OpenFeature } from "@openfeature/server-sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FlagpostProvider } from "../../adapters/openfeature/index.js";
import type { CreateFlagInput } from "../../src/flags/schema.js";
import { createRemoteFlagClient } from "../../src/flags/remote/index.js";
import type { FlagClient } from "../../src/flags/client/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { jsonTypeOf } from "../../src/flags/values.js";
import { startApp, type TestApp } from "../support/servers.js";

// Property (issue 27): for random flags with values and random contexts, the in-process getValue,
// the remote client's, the evaluate route and the OpenFeature provider agree on value, variant and
// reason. Every answer comes through the real thing: a node:http server, the SDK's client.

const USERS = ["u1", "u2", "u3", "u4", "u5", "u6"];
const TYPES = ["string", "number", "boolean", "object", "array"] as const;
type ValueType = (typeof TYPES)[number];

const valueOf: Record<ValueType, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 12 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.constantFrom("a", "b", "ü", "long key"), fc.oneof(fc.string(), fc.integer(), fc.boolean()), {
    maxKeys: 3,
  }),
  array: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { maxLength: 4 }),
};

/** Weights in whole percent summing to 100. */
const weights = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 100 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const sorted = [0, ...cuts.sort((a, b) => a - b), 100];
    return sorted.slice(1).map((at, i) => at - sorted[i]!);
  });

const flagArbitrary = (key: string): fc.Arbitrary<CreateFlagInput & { type: ValueType }> =>
  fc
    .record({
      type: fc.constantFrom(...TYPES),
      count: fc.integer({ min: 2, max: 4 }),
      enabled: fc.boolean(),
    })
    .chain(({ type, count, enabled }) =>
      fc.record({
        type: fc.constant(type),
        key: fc.constant(key),
        enabled: fc.constant(enabled),
        variants: fc
          .tuple(weights(count), fc.array(valueOf[type], { minLength: count, maxLength: count }))
          .map(([ws, values]) => ws.map((weight, i) => ({ key: `v${i}`, weight, value: values[i] }))),
        rules: fc.array(
          fc
            .oneof(
              fc.record({ type: fc.constant("users" as const), userIds: fc.subarray(USERS, { minLength: 1 }) }),
              fc.record({
                type: fc.constant("attribute" as const),
                attribute: fc.constant("plan"),
                operator: fc.constant("equals" as const),
                value: fc.constantFrom("free", "pro"),
              }),
              fc.record({ type: fc.constant("percentage" as const), percentage: fc.integer({ min: 0, max: 100 }) }),
            )
            .chain((rule) =>
              fc
                .option(fc.integer({ min: 0, max: count - 1 }), { nil: undefined })
                .map((served) => (served === undefined ? rule : { ...rule, variant: `v${served}` })),
            ),
          { maxLength: 3 },
        ),
      }),
    );

const contextArbitrary = fc.record(
  {
    userId: fc.oneof(fc.constantFrom(...USERS), fc.string({ minLength: 1, maxLength: 8 })),
    attributes: fc.record({ plan: fc.constantFrom("free", "pro", "team") }),
  },
  { requiredKeys: [] },
);

const FLAGS = 24;
let app: TestApp;
let remote: FlagClient;
let flags: (CreateFlagInput & { type: ValueType })[];

beforeAll(async () => {
  app = await startApp();
  flags = Array.from(
    { length: FLAGS },
    (_, i) => fc.sample(flagArbitrary(`f${i}`), { numRuns: 1, seed: 2027 + i })[0]!,
  );
  for (const { type: _type, ...flag } of flags) await app.fp.flags.create(flag);
  const { key } = await app.fp.keys.create({ name: "sdk", scopes: ["flags:read"] });
  remote = createRemoteFlagClient({ url: app.url, apiKey: key, logger: silentLogger });
  await remote.ready();
  await OpenFeature.setProviderAndWait("values-agreement", new FlagpostProvider(app.fp));
});

afterAll(async () => {
  await OpenFeature.clearProviders();
  await remote.close();
  await app.close();
});

/** The default a caller passes: mostly of the flag's type, sometimes another (for type_mismatch). */
function defaultFor(type: ValueType, mismatch: boolean): unknown {
  const own: Record<ValueType, unknown> = {
    string: "dflt",
    number: -1,
    boolean: false,
    object: { d: 1 },
    array: ["d"],
  };
  return mismatch ? (type === "string" ? 7 : "dflt") : own[type];
}

async function providerDetails(type: ValueType, key: string, fallback: unknown, context: EvaluationContext) {
  const client = OpenFeature.getClient("values-agreement");
  if (typeof fallback === "string") return client.getStringDetails(key, fallback, context);
  if (typeof fallback === "number") return client.getNumberDetails(key, fallback, context);
  return type === "boolean" ? undefined : client.getObjectDetails(key, fallback as JsonValue, context);
}

describe("getValue, the remote client, the evaluate route and the OpenFeature provider agree", () => {
  it("on value, variant and reason for random flags and contexts", async () => {
    const seen = { served: 0, mismatched: 0, defaulted: 0, ruleServed: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: FLAGS - 1 }),
        contextArbitrary,
        fc.boolean(),
        async (index, context, mismatch) => {
          const { key, type } = flags[index]!;
          const fallback = defaultFor(type, mismatch);
          const local = app.fp.flagClient.getValueDetail(key, context, fallback);
          expect(app.fp.getValue(key, context, fallback)).toEqual(local.value);
          expect(remote.getValueDetail(key, context, fallback)).toEqual(local);

          const response = await app.call("POST", `/v1/flags/${key}/evaluate`, context);
          const { data: route } = (await response.json()) as {
            data: { reason: string; variant?: string; value?: unknown };
          };
          const mismatched = route.value !== undefined && jsonTypeOf(route.value) !== jsonTypeOf(fallback);
          if (mismatched) seen.mismatched += 1;
          else if (route.value === undefined) seen.defaulted += 1;
          else seen.served += 1;
          if (route.reason === "rule_match" && route.variant !== undefined) seen.ruleServed += 1;
          if (mismatched) expect(local).toMatchObject({ value: fallback, reason: "type_mismatch" });
          else {
            expect(local.reason).toBe(route.reason);
            expect(local.variant).toBe(route.variant);
            expect(local.value).toEqual(route.value ?? fallback);
          }

          const { userId, attributes } = context;
          const details = await providerDetails(type, key, fallback, {
            ...(attributes ?? {}),
            ...(userId === undefined ? {} : { targetingKey: userId }),
          });
          if (details === undefined) return;
          if (mismatched) expect(details).toMatchObject({ value: fallback, errorCode: "TYPE_MISMATCH" });
          else if (local.variant === undefined) expect(details.value).toEqual(fallback);
          else expect(details).toMatchObject({ value: local.value, variant: local.variant });
        },
      ),
      { numRuns: 200, seed: 27 },
    );
    // The random cases must reach every branch, or the property proves little.
    expect(seen.served).toBeGreaterThan(20);
    expect(seen.mismatched).toBeGreaterThan(20);
    expect(seen.defaulted).toBeGreaterThan(20);
    expect(seen.ruleServed).toBeGreaterThan(5);
  });
});

describe("the remote client follows values", () => {
  it("over the stream: a changed value is served without a poll", async () => {
    await app.fp.flags.create({
      key: "button-text",
      enabled: true,
      variants: [
        { key: "a", weight: 100, value: "Buy now" },
        { key: "b", weight: 0, value: "Order" },
      ],
    });
    await expect.poll(() => remote.getValue("button-text", { userId: "u1" }, ""), { timeout: 5_000 }).toBe("Buy now");
    await app.fp.flags.update("button-text", {
      variants: [
        { key: "a", weight: 100, value: "Checkout" },
        { key: "b", weight: 0, value: "Order" },
      ],
    });
    // Well under the 10 s poll interval: only the stream can have brought it.
    await expect.poll(() => remote.getValue("button-text", { userId: "u1" }, ""), { timeout: 5_000 }).toBe("Checkout");
  });
});
