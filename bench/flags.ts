import { loadavg } from "node:os";
import { OpenFeature } from "@openfeature/server-sdk";
import { createFlagpost, type Flagpost, memoryStorage, type Rule, type Variant } from "flagpost";
import { FlagpostProvider } from "flagpost/openfeature";
import { growthbookSystem, launchDarklySystem, type System, unleashSystem } from "./flags-peers.js";
import { type BenchUser, type FlagSet, flagpostRules, KEY, makeFlagSet, makeUsers } from "./lib/flag-set.js";
import type { BenchPart } from "./lib/part.js";
import { table } from "./lib/report.js";
import { silentLogger } from "./lib/silent-logger.js";
import { fmt, summarize } from "./lib/stats.js";

/**
 * `npm run bench:flags`: the cost of one in-process flag check. flagpost's `isEnabled` beside a
 * floor (a hand-written murmurhash evaluator of the same flag) and the peer SDKs, each running
 * offline on the same 20 flags. The measured flag: a 10-id user list, `plan equals pro`, then a
 * 25% rollout; 100,000 users, 30% of them pro. Timings are per batch of calls (ns/call =
 * batch time / batch size), over several interleaved passes of the whole population.
 */

/** murmur3_x86_32, seed 0, over the string's char codes: the textbook loop, written out plainly. */
export function murmur3(text: string): number {
  let h = 0;
  const n = text.length;
  const blocks = n & ~3;
  let i = 0;
  for (; i < blocks; i += 4) {
    let k =
      text.charCodeAt(i) |
      (text.charCodeAt(i + 1) << 8) |
      (text.charCodeAt(i + 2) << 16) |
      (text.charCodeAt(i + 3) << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (n & 3) {
    case 3:
      k ^= text.charCodeAt(i + 2) << 16;
    // falls through
    case 2:
      k ^= text.charCodeAt(i + 1) << 8;
    // falls through
    case 1:
      k ^= text.charCodeAt(i);
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export type FlagContext = { userId: string; attributes: { plan: string } };
export const flagContexts = (users: BenchUser[]): FlagContext[] =>
  users.map((u) => ({ userId: u.id, attributes: { plan: u.plan } }));

/** The floor: this one flag, hand-written (a Map lookup, a Set, a compare, a hash of key:userId). */
function floorSystem(flags: FlagSet): System<FlagContext> {
  const table = new Map([[KEY, { users: new Set(flags.listed), plan: "pro", threshold: 2500 }]]);
  return {
    name: "floor (hand-written murmurhash evaluator)",
    contexts: flagContexts,
    call: (c) => {
      const f = table.get(KEY)!;
      return (
        f.users.has(c.userId) || c.attributes.plan === f.plan || murmur3(`${KEY}:${c.userId}`) % 10_000 < f.threshold
      );
    },
    async: false,
    close: async () => undefined,
    note: "no rule loop, no validation, no failure handling: the least work that gives the answer",
  };
}

/** The getValue floor: the same flag hand-written, answering a value by one more array read. */
function valueFloorSystem(flags: FlagSet): System<FlagContext> {
  const table = new Map([[KEY, { users: new Set(flags.listed), plan: "pro", threshold: 2500, values: [1, 0] }]]);
  return {
    name: "floor + one array read (getValue's floor)",
    contexts: flagContexts,
    call: (c) => {
      const f = table.get(KEY)!;
      const on =
        f.users.has(c.userId) || c.attributes.plan === f.plan || murmur3(`${KEY}:${c.userId}`) % 10_000 < f.threshold;
      return on ? f.values[0]! : 0;
    },
    async: false,
    close: async () => undefined,
    note: "the floor above, answering the served variant's value (a number) or the default 0",
  };
}

/** The gate the prerequisite variant of the measured flag lists: on for everyone, so answers stay the floor's. */
const GATE = "checkout-gate";

/** The measured flag with values: every rule serves variant "on" (value 1) by name; off answers the default 0. */
function withValues<T extends { rules: Rule[] }>(flag: T): T & { variants: Variant[] } {
  return {
    ...flag,
    rules: flag.rules.map((rule) => ({ ...rule, variant: "on" })),
    variants: [
      { key: "on", weight: 100, value: 1 },
      { key: "other", weight: 0, value: 0 },
    ],
  };
}

/** A flagpost on memory storage with the bench flags (bench/compare.ts opens one per side too). */
export async function flagpostInstance(
  flags: FlagSet,
  exposures: boolean,
  prerequisite = false,
  values = false,
): Promise<Flagpost> {
  const fp = createFlagpost({
    storage: memoryStorage(),
    logger: silentLogger,
    // Room for every user: after the warm-up each call takes the de-duplication path (the steady state).
    ...(exposures
      ? { exposures: { enabled: true, maxKeys: 250_000, maxBuffer: 250_000, sink: { enqueue: () => undefined } } }
      : {}),
  });
  await fp.ready();
  if (prerequisite) await fp.flags.create({ key: GATE, enabled: true });
  for (const flag of flagpostRules(flags)) {
    if (flag.key !== KEY) await fp.flags.create(flag);
    else if (values) await fp.flags.create(withValues(flag));
    else await fp.flags.create(prerequisite ? { ...flag, prerequisites: [{ flagKey: GATE, enabled: true }] } : flag);
  }
  return fp;
}

/** How often the "metrics scraped" row reads fp.metrics(): a scrape pulls the evaluation counts in. */
const SCRAPE_EVERY_CALLS = 1_000;

async function flagpostSystems(flags: FlagSet): Promise<System[]> {
  const fp = await flagpostInstance(flags, false);
  const withExposures = await flagpostInstance(flags, true);
  const withPrerequisite = await flagpostInstance(flags, false, true);
  const valued = await flagpostInstance(flags, false, false, true);
  const scraped = await flagpostInstance(flags, false);
  let sinceScrape = 0;
  const domain = "flagpost-bench";
  await OpenFeature.setProviderAndWait(domain, new FlagpostProvider(fp));
  const openFeature = OpenFeature.getClient(domain);
  return [
    {
      name: "flagpost isEnabled",
      contexts: flagContexts,
      call: (c: FlagContext) => fp.isEnabled(KEY, c),
      async: false,
      close: () => fp.close(),
      note: "fp.isEnabled on the in-process snapshot, evaluation counted for insights (as in every flagpost row)",
    },
    {
      name: "flagpost isEnabled, metrics scraped",
      contexts: flagContexts,
      call: (c: FlagContext) => {
        if (++sinceScrape === SCRAPE_EVERY_CALLS) {
          sinceScrape = 0;
          scraped.metrics();
        }
        return scraped.isEnabled(KEY, c);
      },
      async: false,
      close: () => scraped.close(),
      note: `isEnabled with fp.metrics() (what GET /metrics reads) taken every ${SCRAPE_EVERY_CALLS.toLocaleString("en")} calls, far more often than any scrape interval; the call counter that triggers it is in the measured time`,
    },
    {
      name: "flagpost getValue",
      contexts: flagContexts,
      call: (c: FlagContext) => valued.getValue(KEY, c, 0),
      async: false,
      close: () => valued.close(),
      note: 'fp.getValue on the same rules, each serving variant "on" (value 1) by name; the default 0 when off',
    },
    {
      name: "flagpost isEnabled + prerequisite",
      contexts: flagContexts,
      call: (c: FlagContext) => withPrerequisite.isEnabled(KEY, c),
      async: false,
      close: () => withPrerequisite.close(),
      note: "the measured flag behind a prerequisite (a flag on for everyone), checked first on every call",
    },
    {
      name: "flagpost flagClient.evaluate (detail)",
      contexts: flagContexts,
      call: (c: FlagContext) => fp.flagClient.evaluate(KEY, c).enabled,
      async: false,
      close: async () => undefined,
      note: "allocates the {enabled, reason, ruleIndex} result",
    },
    {
      name: "flagpost isEnabled + exposures",
      contexts: flagContexts,
      call: (c: FlagContext) => withExposures.isEnabled(KEY, c),
      async: false,
      close: () => withExposures.close(),
      note: "opt-in $exposure events in the steady state: each (user, flag, result) already reported within the window, so each call only checks the de-duplication map",
    },
    {
      name: "OpenFeature client → FlagpostProvider",
      contexts: (users: BenchUser[]) => users.map((u) => ({ targetingKey: u.id, plan: u.plan })),
      call: (c: { targetingKey: string; plan: string }) => openFeature.getBooleanValue(KEY, false, c),
      async: true,
      close: () => OpenFeature.clearProviders(),
      note: "@openfeature/server-sdk getBooleanValue (async, awaited per call)",
    },
  ];
}

/**
 * A timing loop compiled for one system alone, so its call site sees one function (as an app's
 * does) and the JIT may inline it; a loop shared by all systems would be megamorphic for all.
 */
export function loopFor(
  system: System,
): (call: System["call"], contexts: unknown[], start: number, end: number) => number | Promise<number> {
  const body = `let on = 0; for (let i = start; i < end; i++) if (${system.async ? "await " : ""}call(contexts[i])) on++; return on; // ${system.name}`;
  const AsyncFunction = (async () => undefined).constructor as FunctionConstructor;
  return (
    system.async
      ? new AsyncFunction("call", "contexts", "start", "end", body)
      : new Function("call", "contexts", "start", "end", body)
  ) as never;
}

export interface Measured {
  system: System;
  nsPerCall: number[];
  trueShare: number;
}

export async function pass(
  m: Measured,
  loop: ReturnType<typeof loopFor>,
  contexts: unknown[],
  batch: number,
  record: boolean,
): Promise<void> {
  let on = 0;
  for (let start = 0; start < contexts.length; start += batch) {
    const end = Math.min(start + batch, contexts.length);
    const t0 = process.hrtime.bigint();
    on += await loop(m.system.call, contexts, start, end);
    const ns = Number(process.hrtime.bigint() - t0);
    if (record) m.nsPerCall.push(ns / (end - start));
  }
  m.trueShare = on / contexts.length;
}

export const flagsBench: BenchPart = {
  name: "flags",
  title: "Flags: one in-process flag check (isEnabled) against a floor and peer SDKs",
  async run({ smoke, log }) {
    const userCount = smoke ? 2_000 : 100_000;
    const rounds = smoke ? 1 : 5;
    const batch = smoke ? 100 : 1_000;
    const load = [loadavg()[0]!];
    const users = makeUsers(userCount);
    const flags = makeFlagSet(users);
    const systems: System[] = [floorSystem(flags), valueFloorSystem(flags), ...(await flagpostSystems(flags))];
    for (const make of [unleashSystem, growthbookSystem, launchDarklySystem]) systems.push(await make(flags));

    const measured = systems.map((system) => ({
      m: { system, nsPerCall: [], trueShare: 0 } as Measured,
      loop: loopFor(system),
      contexts: system.contexts(users),
    }));
    for (const { m, loop, contexts } of measured) await pass(m, loop, contexts, batch, false); // warm-up: JIT, caches
    for (let round = 0; round < rounds; round++) {
      log(`round ${round + 1} of ${rounds}`);
      for (const { m, loop, contexts } of measured) await pass(m, loop, contexts, batch, true); // interleaved: noise hits all alike
    }
    for (const { m } of measured) await m.system.close();
    load.push(loadavg()[0]!);

    const stats = measured.map(({ m }) => ({ m, s: summarize(m.nsPerCall) }));
    const floor = stats[0]!;
    const ours = stats.find((x) => x.m.system.name === "flagpost isEnabled")!;
    const peers = stats.filter(
      (x) =>
        !x.m.system.name.startsWith("flagpost") &&
        !x.m.system.name.startsWith("floor") &&
        !x.m.system.name.startsWith("OpenFeature"),
    );
    const fastestPeer = peers.reduce((a, b) => (b.s.p50 < a.s.p50 ? b : a));
    const rows = stats.map(({ m, s }) => [
      m.system.name,
      fmt(s.p50, 0),
      fmt(s.p99, 0),
      fmt(1e9 / s.mean, 0),
      `${(m.trueShare * 100).toFixed(2)}%`,
      `${(s.p50 / floor.s.p50).toFixed(2)}×`,
      `${(s.p50 / ours.s.p50).toFixed(2)}×`,
    ]);
    // Independent bucketings of n users differ by sampling noise only: allow four standard deviations (at least 1 point).
    const tolerance = Math.max(0.01, 4 * Math.sqrt(0.5 / userCount));
    const shareSpread = Math.max(...stats.map((x) => Math.abs(x.m.trueShare - floor.m.trueShare)));
    const sameAsFloor = stats
      .filter((x) => x.m.system.name.includes("flagpost"))
      .every((x) => x.m.trueShare === floor.m.trueShare);
    const withinFloor = ours.s.p50 / floor.s.p50;
    const gated = stats.find((x) => x.m.system.name === "flagpost isEnabled + prerequisite")!;
    const valueFloor = stats[1]!;
    const value = stats.find((x) => x.m.system.name === "flagpost getValue")!;
    const valueWithinFloor = value.s.p50 / valueFloor.s.p50;
    const gatedWithinFloor = gated.s.p50 / floor.s.p50;
    const vsPeer = fastestPeer.s.p50 / ours.s.p50;
    const metered = stats.find((x) => x.m.system.name === "flagpost isEnabled, metrics scraped")!;
    const meteredWithinFloor = metered.s.p50 / floor.s.p50;
    return [
      `${fmt(userCount)} users (30% pro), 20 flags; measured flag: 10-id user list, \`plan equals pro\`, 25% rollout. ` +
        `${rounds} interleaved passes after a warm-up, batches of ${batch} calls; ${stats[0]!.s.n} batches per system. ` +
        `Load average (1 min) at start and end: ${load.map((l) => l.toFixed(2)).join(" → ")}.`,
      "",
      table(
        ["system", "ns/call p50", "ns/call p99", "calls/s", "share true", "p50 vs floor", "p50 vs isEnabled"],
        rows,
      ),
      "",
      `- isEnabled vs floor: ${withinFloor.toFixed(2)}× (target ≤ 1.5×: ${withinFloor <= 1.5 ? "met" : "MISSED"}); ` +
        `with a prerequisite in front: ${gatedWithinFloor.toFixed(2)}× (${gatedWithinFloor <= 1.5 ? "met" : "MISSED"}). ` +
        "Insight counters are on in both.",
      `- isEnabled with metrics scraped vs floor: ${meteredWithinFloor.toFixed(2)}× ` +
        `(target ≤ 1.5×: ${meteredWithinFloor <= 1.5 ? "met" : "MISSED"}); vs isEnabled: ${(metered.s.p50 / ours.s.p50).toFixed(2)}×.`,
      `- getValue vs its floor (the floor plus one array read): ${valueWithinFloor.toFixed(2)}× ` +
        `(target ≤ 1.5×: ${valueWithinFloor <= 1.5 ? "met" : "MISSED"}); vs isEnabled: ${(value.s.p50 / ours.s.p50).toFixed(2)}×.`,
      `- fastest peer (${fastestPeer.m.system.name}) vs isEnabled: ${vsPeer.toFixed(2)}× slower (target ≥ 5×: ${vsPeer >= 5 ? "met" : "MISSED"})`,
      `- share of true: flagpost ${sameAsFloor ? "equals" : "DIFFERS FROM"} the floor exactly (same bucketing); the peers hash differently ` +
        `(notes below), so other users land in their 25%: largest difference ${(shareSpread * 100).toFixed(2)} points ` +
        `(${shareSpread <= tolerance ? "agree" : "DISAGREE"}, sampling tolerance ${(tolerance * 100).toFixed(1)} points).`,
      "",
      ...stats.map(({ m }) => `- ${m.system.name}: ${m.system.note}`),
    ].join("\n");
  },
};
