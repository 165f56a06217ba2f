import { GrowthBookClient } from "@growthbook/growthbook";
import { init as initLaunchDarkly, type LDLogger } from "@launchdarkly/node-server-sdk";
import { TestData } from "@launchdarkly/node-server-sdk/integrations";
import { InMemStorageProvider, Unleash } from "unleash-client";
import type { BenchUser, FlagSet } from "./lib/flag-set.js";

/**
 * The peer SDKs, each configured to run fully offline with the benchmark's flag set: no SDK may
 * open a connection (the network is closed here, and a retry loop would skew the numbers). Each
 * system gets its contexts in its own native shape, built before timing starts.
 */

/** Contexts differ per system (hence `any`): the harness only hands them back to `call`. */
export interface System<C = any> {
  name: string;
  /** The contexts, in the system's own shape. */
  contexts(users: BenchUser[]): C[];
  /** One evaluation of the measured flag; async systems return a promise. */
  call: ((context: C) => unknown) | ((context: C) => Promise<unknown>);
  async: boolean;
  close(): Promise<void>;
  note: string;
}

/** unleash-client: bootstrap data, no fetching (refreshInterval 0), no metrics, in-memory backup. */
export async function unleashSystem(flags: FlagSet): Promise<System<{ userId: string; properties: { plan: string } }>> {
  const toggle = (name: string, strategies: unknown[]) => ({
    name,
    enabled: true,
    project: "default",
    stale: false,
    type: "release",
    variants: [],
    impressionData: false,
    strategies,
  });
  const rollout = (name: string, percentage: number) => ({
    name: "flexibleRollout",
    constraints: [],
    parameters: { rollout: String(percentage), stickiness: "userId", groupId: name },
  });
  const features = [
    toggle(flags.key, [
      { name: "userWithId", constraints: [], parameters: { userIds: flags.listed.join(",") } },
      {
        name: "default",
        constraints: [
          { contextName: "plan", operator: "IN", values: ["pro"], caseInsensitive: false, inverted: false },
        ],
        parameters: {},
      },
      rollout(flags.key, 25),
    ]),
    ...flags.others.map((o) => toggle(o.key, [rollout(o.key, o.percentage)])),
  ];
  const unleash = new Unleash({
    appName: "flagpost-bench",
    url: "http://127.0.0.1:9/unused", // never contacted: refreshInterval 0 disables fetching
    refreshInterval: 0,
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    bootstrap: { data: features as never },
  });
  unleash.on("error", (error: unknown) => {
    throw new Error(`unleash-client reported an error: ${String(error)}`);
  });
  await new Promise<void>((resolve) => unleash.once("ready", () => resolve()));
  return {
    name: "unleash-client",
    contexts: (users) => users.map((u) => ({ userId: u.id, properties: { plan: u.plan } })),
    call: (context) => unleash.isEnabled(flags.key, context),
    async: false,
    close: async () => unleash.destroy(),
    note: "bootstrap data, refreshInterval 0, metrics off; flexibleRollout hashes groupId:userId with murmur3 into 100 buckets",
  };
}

/** @growthbook/growthbook: GrowthBookClient.initSync with an inline payload (no API host). */
export async function growthbookSystem(flags: FlagSet): Promise<System<{ attributes: { id: string; plan: string } }>> {
  const features: Record<string, unknown> = {
    [flags.key]: {
      defaultValue: false,
      rules: [
        { condition: { id: { $in: flags.listed } }, force: true },
        { condition: { plan: "pro" }, force: true },
        { force: true, coverage: 0.25, hashAttribute: "id" },
      ],
    },
  };
  for (const o of flags.others)
    features[o.key] = {
      defaultValue: false,
      rules: [{ force: true, coverage: o.percentage / 100, hashAttribute: "id" }],
    };
  const gb = new GrowthBookClient().initSync({ payload: { features: features as never } });
  return {
    name: "@growthbook/growthbook",
    contexts: (users) => users.map((u) => ({ attributes: { id: u.id, plan: u.plan } })),
    call: (context) => gb.isOn(flags.key, context),
    async: false,
    close: async () => gb.destroy(),
    note: "GrowthBookClient (multi-user) with an inline payload; rollouts hash with FNV-1a",
  };
}

/** @launchdarkly/node-server-sdk: TestData data source, events and diagnostics off. */
export async function launchDarklySystem(flags: FlagSet): Promise<System<{ kind: "user"; key: string; plan: string }>> {
  const td = new TestData();
  const rolloutFlag = (key: string, percentage: number, extra: Record<string, unknown> = {}) => ({
    key,
    version: 1,
    on: true,
    salt: key,
    variations: [true, false],
    offVariation: 1,
    targets: [],
    rules: [],
    prerequisites: [],
    fallthrough: {
      rollout: {
        variations: [
          { variation: 0, weight: percentage * 1000 },
          { variation: 1, weight: 100_000 - percentage * 1000 },
        ],
      },
    },
    ...extra,
  });
  await td.usePreconfiguredFlag(
    rolloutFlag(flags.key, 25, {
      targets: [{ values: flags.listed, variation: 0 }],
      rules: [{ id: "pro", clauses: [{ attribute: "plan", op: "in", values: ["pro"], negate: false }], variation: 0 }],
    }),
  );
  for (const o of flags.others) await td.usePreconfiguredFlag(rolloutFlag(o.key, o.percentage));
  const problems: string[] = [];
  const record = (...args: unknown[]) => void problems.push(args.join(" "));
  const logger: LDLogger = { debug: () => undefined, info: () => undefined, warn: record, error: record };
  const client = initLaunchDarkly("sdk-offline-benchmark", {
    updateProcessor: td.getFactory(),
    sendEvents: false,
    diagnosticOptOut: true,
    logger,
  });
  await client.waitForInitialization({ timeout: 10 });
  if (problems.length > 0) throw new Error(`LaunchDarkly SDK reported: ${problems.join("; ")}`);
  return {
    name: "@launchdarkly/node-server-sdk",
    contexts: (users) => users.map((u) => ({ kind: "user" as const, key: u.id, plan: u.plan })),
    call: (context) => client.variation(flags.key, context, false) as Promise<boolean>,
    async: true,
    close: async () => {
      client.close();
      if (problems.length > 0) throw new Error(`LaunchDarkly SDK reported: ${problems.join("; ")}`);
    },
    note: "TestData source, sendEvents and diagnostics off; variation() is async (awaited per call); rollouts hash with SHA-1",
  };
}
