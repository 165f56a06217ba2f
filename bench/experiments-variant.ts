import { createFlagpost, memoryStorage } from "flagpost";
import { loopFor, type Measured, murmur3, pass } from "./flags.js";
import type { System } from "./flags-peers.js";
import { EXPERIMENT, VARIANTS } from "./lib/experiment-data.js";
import { makeUsers } from "./lib/flag-set.js";
import { table } from "./lib/report.js";
import { silentLogger } from "./lib/silent-logger.js";
import { fmt, summarize } from "./lib/stats.js";

/**
 * `getVariant` against a floor: a hand-written assignment of the same flag (a Map lookup, the
 * enabled check, murmur3 of "variant:" + key + ":" + userId, a walk over the running weights),
 * beside `isEnabled` of the same flag. Timed with the flags part's loop (one compiled loop per
 * system, batches of calls, interleaved passes), on UUID-shaped ids.
 */

type VariantContext = { userId: string };

function floorSystem(): System<VariantContext> {
  let running = 0;
  const thresholds = VARIANTS.map((v) => (running += v.weight * 100));
  const keys = VARIANTS.map((v) => v.key);
  const flags = new Map([[EXPERIMENT, { enabled: true, thresholds, keys }]]);
  return {
    name: "floor (hand-written variant assignment)",
    contexts: (users) => users.map((u) => ({ userId: u.id })),
    call: (c) => {
      const flag = flags.get(EXPERIMENT)!;
      if (!flag.enabled) return undefined;
      const bucket = murmur3(`variant:${EXPERIMENT}:${c.userId}`) % 10_000;
      for (let i = 0; i < flag.thresholds.length; i++) if (bucket < flag.thresholds[i]!) return flag.keys[i];
      return undefined;
    },
    async: false,
    close: async () => undefined,
    note: "no rule loop, no validation, no failure handling: the least work that gives the answer",
  };
}

export async function measureGetVariant(smoke: boolean, log: (line: string) => void): Promise<string> {
  const userCount = smoke ? 2_000 : 100_000;
  const rounds = smoke ? 1 : 5;
  const batch = smoke ? 100 : 1_000;
  const users = makeUsers(userCount);
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  await fp.flags.create({ key: EXPERIMENT, enabled: true, variants: VARIANTS });
  const systems: System[] = [
    floorSystem(),
    {
      name: "flagpost getVariant",
      contexts: (list) => list.map((u) => ({ userId: u.id })),
      call: (c: VariantContext) => fp.getVariant(EXPERIMENT, c),
      async: false,
      close: async () => undefined,
      note: "fp.getVariant on the in-process snapshot (exposures off)",
    },
    {
      name: "flagpost isEnabled (same flag)",
      contexts: (list) => list.map((u) => ({ userId: u.id })),
      call: (c: VariantContext) => fp.isEnabled(EXPERIMENT, c),
      async: false,
      close: () => fp.close(),
      note: "fp.isEnabled of the same flag, for scale",
    },
  ];
  // Same answers first: a fast wrong assignment would be no result at all.
  const floorCall = systems[0]!.call as (c: VariantContext) => unknown;
  const mismatches = users.filter((u) => fp.getVariant(EXPERIMENT, { userId: u.id }) !== floorCall({ userId: u.id }));
  if (mismatches.length > 0) throw new Error(`getVariant differs from the floor for ${mismatches.length} users`);

  const measured = systems.map((system) => ({
    m: { system, nsPerCall: [], trueShare: 0 } as Measured,
    loop: loopFor(system),
    contexts: system.contexts(users),
  }));
  for (const { m, loop, contexts } of measured) await pass(m, loop, contexts, batch, false); // warm-up
  for (let round = 0; round < rounds; round++) {
    log(`getVariant round ${round + 1} of ${rounds}`);
    for (const { m, loop, contexts } of measured) await pass(m, loop, contexts, batch, true);
  }
  for (const { m } of measured) await m.system.close();
  const stats = measured.map(({ m }) => ({ m, s: summarize(m.nsPerCall) }));
  const floor = stats[0]!.s.p50;
  const ours = stats[1]!.s.p50;
  const rows = stats.map(({ m, s }) => [
    m.system.name,
    fmt(s.p50, 0),
    fmt(s.p99, 0),
    fmt(1e9 / s.mean, 0),
    `${(s.p50 / floor).toFixed(2)}×`,
  ]);
  return [
    `${fmt(userCount)} UUID-shaped user ids, one flag with 3 variants (${VARIANTS.map((v) => `${v.key} ${v.weight}`).join(", ")}), no rules; ` +
      `${rounds} interleaved passes after a warm-up, batches of ${batch} calls. Every user's variant equals the floor's.`,
    "",
    table(["system", "ns/call p50", "ns/call p99", "calls/s", "p50 vs floor"], rows),
    "",
    `- getVariant vs floor: ${(ours / floor).toFixed(2)}× (target ≤ 1.5×: ${ours / floor <= 1.5 ? "met" : "**missed**"})`,
    ...stats.map(({ m }) => `- ${m.system.name}: ${m.system.note}`),
  ].join("\n");
}
