import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { ExperimentResults } from "../../src/experiments/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { runCli } from "../support/cli.js";

// `flagpost experiments results` against a SQLite file the test fills through the library: the
// table shows what fp.experiments.results computes, --json is that object, bad input exits 2.

let dir: string;
let file: string;

async function withFlagpost<T>(work: (fp: Flagpost) => Promise<T>): Promise<T> {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
  const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
  try {
    await fp.ready();
    return await work(fp);
  } finally {
    await fp.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-cli-experiments-"));
  file = join(dir, "flagpost.db");
  await withFlagpost(async (fp) => {
    await fp.flags.create({
      key: "checkout",
      enabled: true,
      variants: [
        { key: "control", weight: 50 },
        { key: "green", weight: 30 },
        { key: "blue", weight: 20 },
      ],
    });
    const events = [];
    for (let i = 0; i < 300; i++) {
      const userId = `u${i}`;
      const variant = fp.getVariant("checkout", { userId })!;
      const at = Date.UTC(2026, 0, 1) + i * 60_000;
      events.push({
        event: "$exposure",
        userId,
        timestamp: new Date(at).toISOString(),
        properties: { experimentId: "checkout", variant },
      });
      if (i % (variant === "green" ? 3 : 5) === 0)
        events.push({
          event: "purchase",
          userId,
          timestamp: new Date(at + 1000).toISOString(),
          properties: { revenue: 5 + (i % 17), currency: "EUR" },
        });
    }
    // An experiment known from events only, with a split no equal assignment would give.
    for (let i = 0; i < 250; i++)
      events.push({
        event: "seen",
        userId: `s${i}`,
        timestamp: "2026-01-01T00:00:00Z",
        properties: { experimentId: "skewed", variant: i < 200 ? "a" : "b" },
      });
    await fp.events.trackBatch(events);
  });
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const expected = (id: string, control?: string) =>
  withFlagpost((fp) => fp.experiments.results(id, { metric: "purchase", ...(control ? { control } : {}) }));

/** The table row of one variant, split on runs of two or more spaces. */
function row(stdout: string, section: string, variant: string): string[] {
  const lines = stdout.split("\n");
  const start = lines.indexOf(section);
  const line = lines.slice(start).find((l) => l.split(/ {2,}/)[0] === variant);
  return line!.split(/ {2,}/);
}

describe("flagpost experiments results", { timeout: 60_000 }, () => {
  it("prints each variant's users, conversion and revenue with the statistics against the control", async () => {
    const run = await runCli(["experiments", "results", "checkout", "--metric", "purchase"], { FLAGPOST_DB: file });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const results = await expected("checkout");
    expect(run.stdout).toContain('Experiment "checkout", metric "purchase", control "control", all events');
    expect(results.variants.map((v) => v.key)).toEqual(["control", "green", "blue"]);
    for (const v of results.variants) {
      const conversion = row(run.stdout, "Conversion", v.key);
      expect(conversion.slice(0, 5)).toEqual([
        v.key,
        String(v.weight),
        String(v.users),
        String(v.conversions),
        `${(v.conversionRate! * 100).toFixed(2)}%`,
      ]);
      const revenue = row(run.stdout, "Revenue per user", v.key);
      expect(revenue.slice(0, 4)).toEqual([v.key, String(v.users), v.revenue.toFixed(2), v.revenuePerUser!.toFixed(2)]);
      if (v.vsControl === null) {
        expect(conversion[5]).toBe("control");
        continue;
      }
      const c = v.vsControl.conversionRate!;
      const sign = (n: number) => (n >= 0 ? "+" : "-");
      expect(conversion.slice(5)).toEqual([
        `${sign(c.difference)}${Math.abs(c.difference * 100).toFixed(2)} pp`,
        `[${c.differenceCI95!.map((b) => `${sign(b)}${Math.abs(b * 100).toFixed(2)} pp`).join(", ")}]`,
        `${sign(c.relativeUplift!)}${Math.abs(c.relativeUplift! * 100).toFixed(2)}%`,
        c.pValue!.toFixed(4),
        `${(c.chanceToBeatControl! * 100).toFixed(2)}%`,
      ]);
      const r = v.vsControl.revenuePerUser!;
      expect(revenue[4]).toBe(`${sign(r.difference)}${Math.abs(r.difference).toFixed(2)}`);
      expect(revenue[7]).toBe(r.pValue!.toFixed(4));
    }
    expect(results.srm.detected).toBe(false);
    expect(run.stdout).toContain(`Sample ratio: chi-square ${results.srm.chiSquare.toFixed(4)}, df 2,`);
    expect(run.stdout).toContain("Users left out (seen in two variants): 0");
  });

  it("--json prints the results object; --control changes the baseline", async () => {
    const run = await runCli(
      ["experiments", "results", "checkout", "--metric", "purchase", "--control", "green", "--json"],
      { FLAGPOST_DB: file },
    );
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as ExperimentResults;
    expect(printed).toEqual(await expected("checkout", "green"));
    expect(printed.control).toBe("green");
    expect(printed.variants.find((v) => v.key === "green")!.vsControl).toBeNull();
  });

  it("warns of a sample ratio mismatch, and honours --from/--to", async () => {
    const skewed = await runCli(["experiments", "results", "skewed", "--metric", "purchase"], { FLAGPOST_DB: file });
    expect(skewed.code).toBe(0);
    expect(skewed.stdout).toContain("SAMPLE RATIO MISMATCH");
    expect(skewed.stdout).toContain("do not trust the numbers above");
    const windowed = await runCli(
      [
        "experiments",
        "results",
        "checkout",
        "--metric",
        "purchase",
        "--from",
        "2026-01-01T01:00:00Z",
        "--to",
        "2026-01-01T02:00:00Z",
        "--json",
      ],
      { FLAGPOST_DB: file },
    );
    const data = JSON.parse(windowed.stdout) as ExperimentResults;
    expect(data.from).toBe("2026-01-01T01:00:00.000Z");
    expect(data.variants.reduce((sum, v) => sum + v.users, 0)).toBe(60); // one exposure a minute
  });

  it("refuses a missing --metric, a bad --control or --from with exit code 2; an unknown id exits 1", async () => {
    const missing = await runCli(["experiments", "results", "checkout"], { FLAGPOST_DB: file });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("experiments results needs --metric");
    const control = await runCli(["experiments", "results", "checkout", "--metric", "purchase", "--control", "red"], {
      FLAGPOST_DB: file,
    });
    expect(control.code).toBe(2);
    expect(control.stderr).toContain('--control names no variant of this experiment (variants: "control", "green"');
    const from = await runCli(["experiments", "results", "checkout", "--metric", "purchase", "--from", "yesterday"], {
      FLAGPOST_DB: file,
    });
    expect(from.code).toBe(2);
    expect(from.stderr).toContain("--from ");
    const unknown = await runCli(["experiments", "results", "nothing-here", "--metric", "purchase"], {
      FLAGPOST_DB: file,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Experiment "nothing-here" was not found');
  });
});
