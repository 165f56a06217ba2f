import { type EvaluationContext, type JsonValue, OpenFeature } from "@openfeature/server-sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FlagpostProvider } from "../../adapters/openfeature/index.js";
import type { CreateFlagInput } from "../../src/flags/schema.js";
import { startApp, type TestApp } from "../support/servers.js";

// Property (issue 27): for random flags (boolean and valued, rules by users, attribute and
// percentage, rules serving a named variant, weighted variants) and random contexts, the
// in-process client, the /v1 evaluate route, the OFREP single route, the OFREP bulk route and the
// in-process OpenFeature provider give the same value, variant and reason. The flagpost reason is
// compared between the flagpost answers, the OFREP reason between OFREP and the provider, whose
// mapping (adapters/openfeature/) is written apart from the OFREP one (adapters/http/ofrep/).

const USERS = ["u1", "u2", "u3", "u4", "u5"];
/** "switch": a boolean flag with weighted variants but no values, read as a boolean everywhere. */
const TYPES = ["boolean", "switch", "string", "number", "object"] as const;
type FlagType = (typeof TYPES)[number];
const isBoolean = (type: FlagType) => type === "boolean" || type === "switch";

const valueOf: Record<Exclude<FlagType, "boolean" | "switch">, fc.Arbitrary<JsonValue>> = {
  string: fc.string({ maxLength: 8 }),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })),
  object: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), {
    maxKeys: 3,
  }),
};

/** Whole-percent weights summing to 100. */
const weights = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 100 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const sorted = [0, ...cuts.sort((a, b) => a - b), 100];
    return sorted.slice(1).map((at, i) => at - sorted[i]!);
  });

const ruleArbitrary = (variants: number) =>
  fc
    .oneof(
      fc.record({ type: fc.constant("users" as const), userIds: fc.subarray(USERS, { minLength: 1 }) }),
      fc.record({
        type: fc.constant("attribute" as const),
        attribute: fc.constantFrom("plan", "country"),
        operator: fc.constant("equals" as const),
        value: fc.constantFrom("free", "pro", "CA"),
      }),
      fc.record({ type: fc.constant("percentage" as const), percentage: fc.integer({ min: 0, max: 100 }) }),
    )
    .chain((rule) =>
      variants === 0
        ? fc.constant(rule)
        : fc
            .option(fc.integer({ min: 0, max: variants - 1 }), { nil: undefined })
            .map((served) => (served === undefined ? rule : { ...rule, variant: `v${served}` })),
    );

type RandomFlag = CreateFlagInput & { type: FlagType };

/** Each type gets its share of the flags: the random part is everything else. */
const flagArbitrary = (key: string, flagType: FlagType): fc.Arbitrary<RandomFlag> =>
  fc
    .record({ type: fc.constant(flagType), count: fc.integer({ min: 2, max: 4 }), enabled: fc.boolean() })
    .chain(({ type, count, enabled }) => {
      const variants =
        type === "boolean"
          ? fc.constant<{ key: string; weight: number; value?: JsonValue }[]>([])
          : type === "switch"
            ? weights(count).map((ws) => ws.map((weight, i) => ({ key: `v${i}`, weight })))
            : fc
                .tuple(weights(count), fc.array(valueOf[type], { minLength: count, maxLength: count }))
                .map(([ws, values]) => ws.map((weight, i) => ({ key: `v${i}`, weight, value: values[i] })));
      return fc.record({
        type: fc.constant(type),
        key: fc.constant(key),
        enabled: fc.constant(enabled),
        variants,
        rules: fc.array(ruleArbitrary(type === "boolean" ? 0 : count), { maxLength: 3 }),
      });
    });

const contextArbitrary = fc.record(
  {
    targetingKey: fc.oneof(fc.constantFrom(...USERS), fc.string({ minLength: 1, maxLength: 8 })),
    plan: fc.constantFrom("free", "pro"),
    country: fc.constantFrom("CA", "FR"),
  },
  { requiredKeys: [] },
);

const FLAGS = 20;
const DEFAULTS: Record<FlagType, JsonValue> = {
  boolean: false,
  switch: false,
  string: "dflt",
  number: -1,
  object: { d: 1 },
};

type OfrepBody = { key: string; value?: unknown; variant?: string; reason?: string; errorCode?: string };

let app: TestApp;
let clientKey: string;
let flags: RandomFlag[];

beforeAll(async () => {
  app = await startApp({ http: { rateLimit: false } });
  flags = Array.from(
    { length: FLAGS },
    (_, i) => fc.sample(flagArbitrary(`f${i}`, TYPES[i % TYPES.length]!), { numRuns: 1, seed: 2727 + i })[0]!,
  );
  for (const { type: _type, ...flag } of flags) await app.fp.flags.create(flag);
  clientKey = (await app.fp.keys.create({ name: "web", scopes: ["flags:client"] })).key;
  await OpenFeature.setProviderAndWait("ofrep-agreement", new FlagpostProvider(app.fp));
});

afterAll(async () => {
  await OpenFeature.clearProviders();
  await app.close();
});

async function ofrep(path: string, context: EvaluationContext) {
  const res = await fetch(`${app.url}/ofrep/v1/evaluate/flags${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${clientKey}`, "content-type": "application/json" },
    body: JSON.stringify({ context }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

function providerDetails(type: FlagType, key: string, context: EvaluationContext) {
  const client = OpenFeature.getClient("ofrep-agreement");
  if (isBoolean(type)) return client.getBooleanDetails(key, false, context);
  if (type === "string") return client.getStringDetails(key, DEFAULTS.string as string, context);
  if (type === "number") return client.getNumberDetails(key, DEFAULTS.number as number, context);
  return client.getObjectDetails(key, DEFAULTS.object, context);
}

describe("in process, /v1 evaluate, OFREP single and bulk, and the OpenFeature provider agree", () => {
  it("on value, variant and reason for random flags and contexts", async () => {
    const seen = { served: 0, defaulted: 0, ruleServed: 0, split: 0, noKey: 0, booleans: 0, switchVariants: 0 };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: FLAGS - 1 }), contextArbitrary, async (index, context) => {
        const { key, type } = flags[index]!;
        const fallback = DEFAULTS[type];
        const { targetingKey, ...attributes } = context;
        const flagContext = { ...(targetingKey === undefined ? {} : { userId: targetingKey }), attributes };

        // flagpost's own answers: in process and the /v1 evaluate route.
        const local = isBoolean(type)
          ? (({ enabled, reason, variant }) => ({ value: enabled, reason, variant }))(
              app.fp.flagClient.evaluate(key, flagContext),
            )
          : app.fp.flagClient.getValueDetail(key, flagContext, fallback);
        const response = await app.call("POST", `/v1/flags/${key}/evaluate`, flagContext);
        const { data: route } = (await response.json()) as {
          data: { enabled: boolean; reason: string; variant?: string; value?: unknown };
        };
        expect(route.reason).toBe(local.reason);
        expect(route.variant).toBe(local.variant);
        expect(isBoolean(type) ? route.enabled : (route.value ?? fallback)).toEqual(local.value);

        // OFREP: the single route and this flag's entry in the bulk answer are the same body.
        const single = await ofrep(`/${key}`, context);
        const bulk = await ofrep("", context);
        const fromBulk = (bulk.body as { flags: OfrepBody[] }).flags.find((f) => f.key === key);
        expect(fromBulk).toEqual(single.body);
        const answer = single.body as OfrepBody;

        // The in-process OpenFeature provider.
        const details = await providerDetails(type, key, context);
        if (answer.errorCode !== undefined) {
          seen.noKey += 1;
          expect(single.status).toBe(400);
          expect(details).toMatchObject({ value: fallback, errorCode: answer.errorCode });
          expect(local.value).toEqual(fallback);
          return;
        }
        expect(single.status).toBe(200);
        if (isBoolean(type)) seen.booleans += 1;
        if (type === "switch" && answer.variant !== undefined) seen.switchVariants += 1;
        if ("value" in answer) seen.served += 1;
        else seen.defaulted += 1;
        if (route.reason === "rule_match" && route.variant !== undefined) seen.ruleServed += 1;
        if (answer.reason === "SPLIT") seen.split += 1;
        const value = "value" in answer ? answer.value : fallback;
        expect(value).toEqual(local.value);
        expect(answer.variant).toBe(local.variant);
        expect(details.errorCode).toBeUndefined();
        expect({ value: details.value, variant: details.variant, reason: details.reason }).toEqual({
          value,
          variant: answer.variant,
          reason: answer.reason,
        });
      }),
      { numRuns: 200, seed: 2727 },
    );
    // The random cases must reach every branch, or the property proves little.
    expect(seen.served).toBeGreaterThan(20);
    expect(seen.defaulted).toBeGreaterThan(10);
    expect(seen.ruleServed).toBeGreaterThan(5);
    expect(seen.split).toBeGreaterThan(5);
    expect(seen.noKey).toBeGreaterThan(2);
    expect(seen.booleans).toBeGreaterThan(10);
    expect(seen.switchVariants).toBeGreaterThan(5);
  });
});
