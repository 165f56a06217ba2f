import { rmSync } from "node:fs";
import { join } from "node:path";
import { SIGNING_VARIANTS } from "./emails-signing.js";
import { measure as sendRound } from "./emails-measure.js";
import type { LoadOptions, LoadResult } from "./http-load.js";
import type { ServerReady } from "./http-workload.js";
import { type Child, startChild } from "./lib/child.js";
import type { Side } from "./lib/compare-build.js";
import { eventBatch, streamShape } from "./lib/event-data.js";
import { KEY, makeFlagSet, makeUsers } from "./lib/flag-set.js";
import { Meter } from "./lib/meter.js";
import { median } from "./lib/stats.js";

/**
 * The four measures of `npm run bench:compare` (issue 26: "no slower"), each a round of an
 * existing bench part's workload, imported from (or run as a child from) each side's bench/ so
 * "flagpost" is that side's build. A round is bounded in count; compare.ts also bounds its time.
 */

/** One side's measure, opened once: `round()` runs one bounded round and answers its number. */
export interface Runner {
  round(): Promise<number>;
  close(): Promise<void>;
}

export interface Measure {
  name: string;
  /** What a round's number is, e.g. "ns/call p50". */
  unit: string;
  higherIsBetter: boolean;
  rounds: number;
  /** Rounds of each side run before any is kept: JIT, caches, first-use costs. */
  warmups: number;
  /** What a round does, for the report. */
  round: string;
  /** Opens a runner per side (in their order) with what they share; `close` ends the shared part. */
  open(sides: Side[]): Promise<{ runners: Runner[]; close(): Promise<void> }>;
}

const USERS = 100_000;
const EVENTS_PER_ROUND = 20_000;
const EVENT_BATCH = 1_000;
const EMAILS_PER_ROUND = 500;
const HTTP_SECONDS = 3;
const HTTP_CONNECTIONS = 50;

const isEnabled: Measure = {
  name: "isEnabled",
  unit: "ns/call, median of 1,000-call batches",
  higherIsBetter: false,
  rounds: 21,
  warmups: 1,
  round: `one pass of ${USERS.toLocaleString("en")} users through fp.isEnabled (bench/flags.ts: flagpostInstance, loopFor, pass), memory storage`,
  async open(sides) {
    const users = makeUsers(USERS);
    const flags = makeFlagSet(users);
    const runners = await Promise.all(
      sides.map(async (side): Promise<Runner> => {
        const part = (await import(side.url("flags.ts").href)) as typeof import("./flags.js");
        const fp = await part.flagpostInstance(flags, false);
        const system = {
          name: `isEnabled ${side.name}`,
          contexts: part.flagContexts,
          call: (c: import("./flags.js").FlagContext) => fp.isEnabled(KEY, c),
          async: false,
          close: () => fp.close(),
          note: "",
        };
        const loop = part.loopFor(system);
        const contexts = system.contexts(users);
        return {
          async round() {
            const m = { system, nsPerCall: [] as number[], trueShare: 0 };
            await part.pass(m, loop, contexts, 1_000, true);
            return median(m.nsPerCall);
          },
          close: () => fp.close(),
        };
      }),
    );
    return { runners, close: async () => undefined };
  },
};

const trackBatch: Measure = {
  name: "trackBatch",
  unit: "events/s",
  higherIsBetter: true,
  rounds: 5,
  warmups: 1,
  round: `${EVENTS_PER_ROUND.toLocaleString("en")} events through fp.events.trackBatch in batches of ${EVENT_BATCH.toLocaleString("en")} into SQLite (bench/events.ts: sqliteFlagpost, the event stream of lib/event-data.ts); each side's table grows alike`,
  async open(sides) {
    const total = EVENTS_PER_ROUND * (this.rounds + this.warmups);
    const shape = streamShape(total, Date.now());
    const runners = await Promise.all(
      sides.map(async (side): Promise<Runner> => {
        const part = (await import(side.url("events.ts").href)) as typeof import("./events.js");
        const dir = part.benchDir();
        const { fp, handle } = await part.sqliteFlagpost(join(dir, "flagpost.db"));
        let at = 0;
        return {
          async round() {
            const meter = new Meter();
            for (let end = at + EVENTS_PER_ROUND; at < end; at += EVENT_BATCH) {
              const batch = eventBatch(shape, at % total, EVENT_BATCH);
              await meter.time(batch.length, () => fp.events.trackBatch(batch));
            }
            return meter.perSecond;
          },
          async close() {
            await fp.close();
            handle.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }),
    );
    return { runners, close: async () => undefined };
  },
};

const emails: Measure = {
  name: "emails",
  unit: "emails/s, send to the sink's last arrival",
  higherIsBetter: true,
  rounds: 5,
  warmups: 1,
  round: `${EMAILS_PER_ROUND.toLocaleString("en")} fp.emails.send on a fresh SQLite file, 10 callers, to an SMTP sink (bench/emails-sender.ts and emails-measure.ts, the "flagpost send" SQLite row of bench:emails); sender on core 0, sink on core 1`,
  async open(sides) {
    const sink = await startChild<{ port: number }>(new URL("./emails-sink.ts", import.meta.url), [], { core: 1 });
    const senders: Child[] = [];
    try {
      for (const side of sides) senders.push(await startChild(side.url("emails-sender.ts"), [], { core: 0 }));
    } catch (error) {
      await Promise.allSettled([sink, ...senders].map((c) => c.close()));
      throw error;
    }
    const variant = SIGNING_VARIANTS[0]!;
    return {
      runners: senders.map((sender) => ({
        round: async () => (await sendRound(sender, sink, variant, EMAILS_PER_ROUND)).e2e,
        close: () => sender.close(),
      })),
      close: () => sink.close(),
    };
  },
};

/**
 * POST /v1/flags/{key}/evaluate against each side's toNodeHandler, one server per side on core 0
 * and one autocannon child on core 1. `per` picks a round's number from its load result and the
 * server's CPU time (µs) spent in it.
 */
function httpEvaluateMeasure(
  shape: Pick<Measure, "name" | "unit" | "higherIsBetter" | "rounds">,
  per: (result: LoadResult, serverCpuUs: number) => number,
): Measure {
  return {
    ...shape,
    warmups: 1,
    round: `${HTTP_SECONDS} s of POST /v1/flags/{key}/evaluate, ${HTTP_CONNECTIONS} connections, autocannon (bench/http-load.ts) against flagpost toNodeHandler on memory storage (bench/http-servers.ts flagpost-node); server on core 0, load on core 1`,
    async open(sides) {
      const loader = await startChild(new URL("./http-load.ts", import.meta.url), [], { core: 1 });
      const servers: Child<ServerReady>[] = [];
      try {
        for (const side of sides)
          servers.push(
            await startChild<ServerReady>(side.url("http-servers.ts"), ["flagpost-node", "memory"], { core: 0 }),
          );
      } catch (error) {
        await Promise.allSettled([loader, ...servers].map((c) => c.close()));
        throw error;
      }
      return {
        runners: servers.map((server) => ({
          async round() {
            await server.call("reset");
            const options: LoadOptions = {
              url: `http://127.0.0.1:${server.ready.port}`,
              route: "evaluate",
              key: server.ready.key,
              connections: HTTP_CONNECTIONS,
              seconds: HTTP_SECONDS,
            };
            const cpuBefore = await server.call<number>("cpu");
            const result = await loader.call<LoadResult>("run", options);
            const serverCpuUs = (await server.call<number>("cpu")) - cpuBefore;
            if (result.wrong > 0) throw new Error(`http evaluate: ${result.wrong} answers were errors or not 200`);
            return per(result, serverCpuUs);
          },
          close: () => server.close(),
        })),
        close: () => loader.close(),
      };
    },
  };
}

const httpEvaluate = httpEvaluateMeasure(
  { name: "http evaluate", unit: "requests/s", higherIsBetter: true, rounds: 5 },
  (result) => result.rps,
);

/**
 * The same load, counted as the server's CPU per answered request: a saturated server on its own
 * core is measured by what each request costs it, which a busy machine disturbs less than req/s.
 */
const httpEvaluateCpu = httpEvaluateMeasure(
  { name: "http evaluate cpu", unit: "server CPU µs/request", higherIsBetter: false, rounds: 9 },
  (result, serverCpuUs) => serverCpuUs / (result.rps * result.seconds),
);

export const MEASURES: readonly Measure[] = [isEnabled, trackBatch, emails, httpEvaluate, httpEvaluateCpu];
