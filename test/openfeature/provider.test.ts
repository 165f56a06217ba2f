import {
  type Client,
  ErrorCode,
  type EventDetails,
  OpenFeature,
  ProviderEvents,
  ProviderStatus,
} from "@openfeature/server-sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { FlagpostProvider } from "../../adapters/openfeature/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { createRemoteFlagClient } from "../../src/flags/remote/index.js";
import { type EventSink, FlagClient } from "../../src/flags/client/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { waitUntil } from "../flags/support/wait.js";
import { startApp } from "../support/servers.js";

// The provider as applications use it: through the real @openfeature/server-sdk client. Each test
// binds its provider to a domain of its own, so the global OpenFeature API never leaks between them.

let domainCount = 0;
const cleanups: (() => Promise<void>)[] = [];

async function bind(provider: FlagpostProvider): Promise<Client> {
  const domain = `flagpost-${++domainCount}`;
  await OpenFeature.setProviderAndWait(domain, provider);
  return OpenFeature.getClient(domain);
}

async function flagpost(): Promise<Flagpost> {
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  cleanups.push(() => fp.close());
  await fp.ready();
  await fp.flags.create({ key: "off", enabled: false, rules: [{ type: "users", userIds: ["u1"] }] });
  await fp.flags.create({ key: "everyone", enabled: true });
  await fp.flags.create({
    key: "checkout",
    enabled: true,
    rules: [
      { type: "users", userIds: ["vip"] },
      { type: "attribute", attribute: "plan", operator: "equals", value: "pro" },
      { type: "attribute", attribute: "signup", operator: "gte", value: "2026-01-01T00:00:00Z" },
      { type: "percentage", percentage: 6.32 },
    ],
  });
  return fp;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
afterAll(async () => {
  await OpenFeature.close();
});

describe("FlagpostProvider through the OpenFeature server SDK", () => {
  it("describes itself and runs on the server", async () => {
    const provider = new FlagpostProvider(await flagpost());
    expect(provider.metadata.name).toBe("flagpost");
    expect(provider.runsOn).toBe("server");
    const client = await bind(provider);
    expect(OpenFeature.getProviderMetadata(client.metadata.domain).name).toBe("flagpost");
    expect(client.providerStatus).toBe(ProviderStatus.READY);
  });

  it("initialize() starts flagpost itself: no fp.ready() is needed before setProviderAndWait", async () => {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    cleanups.push(() => fp.close());
    await fp.flags.create({ key: "on", enabled: true });
    const domain = `flagpost-${++domainCount}`;
    await OpenFeature.setProviderAndWait(domain, new FlagpostProvider(fp));
    const client = OpenFeature.getClient(domain);
    expect(client.providerStatus).toBe(ProviderStatus.READY);
    expect(await client.getBooleanValue("on", false, { targetingKey: "u1" })).toBe(true);
    expect(fp.isEnabled("on")).toBe(true);
  });

  it("initialize() fails with a clear error when no snapshot arrives within initializeTimeoutMs", async () => {
    const { client: neverReady } = FlagClient.create();
    const domain = `flagpost-${++domainCount}`;
    const started = Date.now();
    await expect(
      OpenFeature.setProviderAndWait(domain, new FlagpostProvider(neverReady, { initializeTimeoutMs: 150 })),
    ).rejects.toThrow("flagpost's start (storage, first flag snapshot) did not finish within 150 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(OpenFeature.getClient(domain).providerStatus).toBe(ProviderStatus.ERROR);
  });

  it("maps flagpost's reasons to OpenFeature's, with the rule index as flag metadata", async () => {
    const client = await bind(new FlagpostProvider(await flagpost()));
    const details = async (key: string, context: Record<string, unknown>) => {
      const d = await client.getBooleanDetails(key, false, context as never);
      return { value: d.value, reason: d.reason, errorCode: d.errorCode, flagMetadata: d.flagMetadata };
    };
    expect(await details("off", { targetingKey: "u1" })).toEqual({
      value: false,
      reason: "DISABLED",
      errorCode: undefined,
      flagMetadata: {},
    });
    expect(await details("everyone", {})).toEqual({
      value: true,
      reason: "STATIC",
      errorCode: undefined,
      flagMetadata: {},
    });
    expect(await details("checkout", { targetingKey: "vip" })).toEqual({
      value: true,
      reason: "TARGETING_MATCH",
      errorCode: undefined,
      flagMetadata: { ruleIndex: 0, ruleType: "users" },
    });
    expect(await details("checkout", { targetingKey: "x", plan: "pro" })).toEqual({
      value: true,
      reason: "TARGETING_MATCH",
      errorCode: undefined,
      flagMetadata: { ruleIndex: 1, ruleType: "attribute" },
    });
    // A Date in the context compares as an instant.
    expect(await details("checkout", { targetingKey: "x", signup: new Date("2026-02-01T00:00:00Z") })).toMatchObject({
      value: true,
      flagMetadata: { ruleIndex: 2 },
    });
    expect(await details("checkout", { targetingKey: "x", signup: new Date("2025-12-31T23:59:59Z") })).toMatchObject({
      value: false,
      reason: "DEFAULT",
    });
    // Some user inside the 6.32% (found through the client), to check SPLIT.
    const fp = await flagpost();
    const inside = Array.from({ length: 200 }, (_, i) => `user-${i}`).find(
      (id) => fp.flagClient.evaluate("checkout", { userId: id }).ruleIndex === 3,
    )!;
    expect(await details("checkout", { targetingKey: inside })).toEqual({
      value: true,
      reason: "SPLIT",
      errorCode: undefined,
      flagMetadata: { ruleIndex: 3, ruleType: "percentage" },
    });
    expect(await details("checkout", {})).toEqual({
      value: false,
      reason: "DEFAULT",
      errorCode: undefined,
      flagMetadata: {},
    });
    expect(await details("nope", { targetingKey: "u1" })).toMatchObject({
      value: false,
      reason: "ERROR",
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
    expect((await client.getBooleanDetails("nope", true)).value).toBe(true);
  });

  it("resolves a flag with variants as a string: the user's variant with reason SPLIT", async () => {
    const fp = await flagpost();
    const variants = [
      { key: "control", weight: 50 },
      { key: "treatment", weight: 50 },
    ];
    await fp.flags.create({
      key: "split",
      enabled: true,
      rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }],
      variants,
    });
    const client = await bind(new FlagpostProvider(fp));
    for (const user of ["u1", "u2", "u3", "ü-4"]) {
      const expected = fp.getVariant("split", { userId: user, attributes: { plan: "pro" } });
      expect(expected).toMatch(/^(control|treatment)$/);
      expect(await client.getStringDetails("split", "none", { targetingKey: user, plan: "pro" })).toMatchObject({
        value: expected,
        variant: expected,
        reason: "SPLIT",
      });
    }
    expect(await client.getStringDetails("split", "none", { targetingKey: "u1", plan: "free" })).toMatchObject({
      value: "none",
      reason: "DEFAULT",
    });
    expect(await client.getStringDetails("split", "none", { plan: "pro" })).toMatchObject({
      value: "none",
      reason: "ERROR",
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
    });
    expect(await client.getStringDetails("missing", "none", { targetingKey: "u1" })).toMatchObject({
      value: "none",
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
    await fp.flags.update("split", { enabled: false });
    expect(await client.getStringDetails("split", "none", { targetingKey: "u1", plan: "pro" })).toMatchObject({
      value: "none",
      reason: "DISABLED",
    });
  });

  it("resolves string, number and object flags from their values, and TYPE_MISMATCH for another type", async () => {
    const fp = await flagpost();
    const two = (a: unknown, b: unknown) => [
      { key: "a", weight: 100, value: a },
      { key: "b", weight: 0, value: b },
    ];
    const pro = [
      { type: "attribute" as const, attribute: "plan", operator: "equals" as const, value: "pro", variant: "b" },
    ];
    await fp.flags.create({ key: "text", enabled: true, rules: pro, variants: two("Buy now", "Order") });
    await fp.flags.create({ key: "limit", enabled: true, variants: two(25, 250) });
    await fp.flags.create({ key: "config", enabled: true, variants: two({ retries: 3 }, { retries: 5 }) });
    await fp.flags.create({ key: "tiers", enabled: true, variants: two(["free"], ["free", "pro"]) });
    await fp.flags.create({ key: "text-off", enabled: false, variants: two("Buy now", "Order") });
    const client = await bind(new FlagpostProvider(fp));
    expect(await client.getStringDetails("text", "fallback", { targetingKey: "u1", plan: "pro" })).toMatchObject({
      value: "Order",
      variant: "b",
      reason: "TARGETING_MATCH",
    });
    expect(await client.getStringDetails("text", "fallback", { plan: "pro" })).toMatchObject({ value: "Order" });
    // No rule matches: the flag is off for this user, so the caller's default, as for a boolean.
    expect(await client.getStringDetails("text", "fallback", { targetingKey: "u1" })).toMatchObject({
      value: "fallback",
      reason: "DEFAULT",
    });
    expect(await client.getNumberDetails("limit", 1, { targetingKey: "u1" })).toMatchObject({
      value: 25,
      variant: "a",
      reason: "SPLIT",
    });
    expect(await client.getNumberDetails("limit", 1, {})).toMatchObject({
      value: 1,
      errorCode: ErrorCode.TARGETING_KEY_MISSING,
    });
    expect(await client.getObjectValue("config", {}, { targetingKey: "u1" })).toEqual({ retries: 3 });
    expect(await client.getObjectValue("tiers", [], { targetingKey: "u1" })).toEqual(["free"]);
    expect(await client.getStringDetails("text-off", "fallback", { targetingKey: "u1" })).toMatchObject({
      value: "fallback",
      reason: "DISABLED",
    });
    expect(await client.getNumberDetails("text", 1, { targetingKey: "u1" })).toMatchObject({
      value: 1,
      reason: "ERROR",
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
    expect(await client.getStringDetails("config", "x", { targetingKey: "u1" })).toMatchObject({
      value: "x",
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
    expect(await client.getNumberDetails("missing", 1, { targetingKey: "u1" })).toMatchObject({
      value: 1,
      errorCode: ErrorCode.FLAG_NOT_FOUND,
    });
  });

  it("raises TYPE_MISMATCH for string, number and object evaluations", async () => {
    const client = await bind(new FlagpostProvider(await flagpost()));
    const asString = await client.getStringDetails("everyone", "fallback");
    expect(asString).toMatchObject({ value: "fallback", reason: "ERROR", errorCode: ErrorCode.TYPE_MISMATCH });
    expect(await client.getNumberDetails("everyone", 7)).toMatchObject({
      value: 7,
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
    expect(await client.getObjectDetails("everyone", { a: 1 })).toMatchObject({
      value: { a: 1 },
      errorCode: ErrorCode.TYPE_MISMATCH,
    });
  });

  it("emits CONFIGURATION_CHANGED with the keys that changed", async () => {
    const fp = await flagpost();
    const client = await bind(new FlagpostProvider(fp));
    const changed: EventDetails[] = [];
    client.addHandler(ProviderEvents.ConfigurationChanged, (details) => void changed.push(details!));
    await fp.flags.update("everyone", { enabled: false });
    await waitUntil(() => changed.length === 1, { timeoutMs: 5_000 });
    expect(changed[0]!.flagsChanged).toEqual(["everyone"]);
    expect(await client.getBooleanValue("everyone", true)).toBe(false);
  });

  it("emits STALE while refreshes fail and READY when they work again", async () => {
    const { client: flagClient, feed } = FlagClient.create();
    feed.replace([{ key: "on", enabled: true, rules: [] }]);
    const client = await bind(new FlagpostProvider(flagClient));
    const seen: string[] = [];
    client.addHandler(ProviderEvents.Stale, () => void seen.push("stale"));
    client.addHandler(ProviderEvents.Ready, () => void seen.push("ready"));
    seen.length = 0; // a handler added to a ready client runs once at once
    feed.stale(new Error("server down"));
    await waitUntil(() => client.providerStatus === ProviderStatus.STALE, { timeoutMs: 5_000 });
    expect(await client.getBooleanValue("on", false)).toBe(true); // the last snapshot still answers
    feed.fresh();
    await waitUntil(() => client.providerStatus === ProviderStatus.READY, { timeoutMs: 5_000 });
    expect(seen).toEqual(["stale", "ready"]);
  });

  it("fails fatally on a refused API key (remote client)", async () => {
    const app = await startApp();
    cleanups.push(() => app.close());
    const flagClient = createRemoteFlagClient({ url: app.url, apiKey: "fp_wrong", logger: silentLogger });
    cleanups.push(() => flagClient.close());
    const domain = `flagpost-${++domainCount}`;
    await expect(OpenFeature.setProviderAndWait(domain, new FlagpostProvider(flagClient))).rejects.toThrow();
    const client = OpenFeature.getClient(domain);
    expect(client.providerStatus).toBe(ProviderStatus.FATAL);
    expect(await client.getBooleanDetails("anything", true)).toMatchObject({
      value: true,
      errorCode: ErrorCode.PROVIDER_FATAL,
    });
  });

  it("works over a remote client against a real server", async () => {
    const app = await startApp();
    cleanups.push(() => app.close());
    await app.fp.flags.create({ key: "beta", enabled: true, rules: [{ type: "users", userIds: ["u1"] }] });
    const flagClient = createRemoteFlagClient({ url: app.url, apiKey: app.key, logger: silentLogger });
    cleanups.push(() => flagClient.close());
    const client = await bind(new FlagpostProvider(flagClient));
    expect(await client.getBooleanDetails("beta", false, { targetingKey: "u1" })).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
  });

  it("feeds track() to the EventTracker: targetingKey as userId, details as properties", async () => {
    const events: Parameters<EventSink["enqueue"]>[0][] = [];
    const sink: EventSink = { enqueue: (event) => void events.push(event) };
    const fp = await flagpost();
    // What a Flagpost instance with fp.events looks like to the provider.
    const client = await bind(new FlagpostProvider({ flagClient: fp.flagClient, events: sink }));
    client.track("purchase", { targetingKey: "u1", plan: "pro" }, { value: 9.99, currency: "EUR" });
    client.track("no-user", {}, {});
    expect(events).toEqual([{ event: "purchase", userId: "u1", properties: { value: 9.99, currency: "EUR" } }]);

    const explicit: typeof events = [];
    const other = await bind(
      new FlagpostProvider(fp.flagClient, { events: { enqueue: (e) => void explicit.push(e) } }),
    );
    other.track("signup", { targetingKey: "u2" });
    expect(explicit).toEqual([{ event: "signup", userId: "u2", properties: {} }]);
  });

  it("stores track() events through fp.events when given a Flagpost instance", async () => {
    const storage = memoryStorage();
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    const client = await bind(new FlagpostProvider(fp));
    client.track("purchase", { targetingKey: "u1", plan: "pro" }, { value: 9.99, currency: "EUR" });
    await fp.events.flush();
    const stored = await fp.events.query({ userId: "u1" });
    expect(stored.data.map((e) => [e.event, e.properties])).toEqual([["purchase", { value: 9.99, currency: "EUR" }]]);
    await fp.close();
  });

  it("stops forwarding events after onClose()", async () => {
    const fp = await flagpost();
    const provider = new FlagpostProvider(fp);
    await bind(provider);
    let changes = 0;
    provider.events.addHandler(ProviderEvents.ConfigurationChanged, () => void changes++);
    await fp.flags.update("everyone", { enabled: false });
    expect(changes).toBe(1);
    await provider.onClose();
    await fp.flags.update("everyone", { enabled: true });
    expect(changes).toBe(1);
    expect(fp.isEnabled("everyone")).toBe(true); // the client itself keeps working
  });
});
