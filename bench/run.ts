import { writeFileSync } from "node:fs";
import { builtPackageEntry } from "./lib/built-package.js";
import { NOISY_LOAD, loadLine, oneMinuteLoad } from "./lib/load.js";
import type { BenchPart } from "./lib/part.js";
import { machineReport } from "./lib/report.js";
import { PARTS } from "./parts.js";

/**
 * `npm run bench` runs every part and writes bench/RESULTS.md; `npm run bench -- flags` (or
 * `npm run bench:flags`) runs one part and prints its tables. Both build dist/ first and measure
 * it, the package as users install it, not the sources under tsx (issue 30). `--smoke` runs the
 * parts on their tiny sizes (seconds, numbers meaningless, RESULTS.md untouched): a check that
 * they run on dist/, where test/bench-smoke.test.ts runs them on the sources.
 */
const PACKAGES = [
  "kysely",
  "better-sqlite3",
  "pg",
  "mysql2",
  "zod",
  "murmurhash-js",
  "nodemailer",
  "smtp-server",
  "autocannon",
  "express",
  "fastify",
  "hono",
  "@hono/node-server",
];

async function runPart(part: BenchPart, smoke: boolean): Promise<string> {
  const loadBefore = oneMinuteLoad();
  process.stderr.write(`[${part.name}] 1-minute load ${loadBefore.toFixed(2)} at start\n`);
  const started = performance.now();
  const markdown = await part.run({ smoke, log: (line) => process.stderr.write(`[${part.name}] ${line}\n`) });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const load = loadLine(loadBefore, oneMinuteLoad());
  return `## ${part.title}\n\n${markdown}\n\n_(part took ${seconds} s)_\n${load}\n`;
}

async function main(args: string[]): Promise<void> {
  const smoke = args.includes("--smoke");
  const names = args.filter((arg) => arg !== "--smoke");
  const unknown = names.filter((n) => !PARTS.some((p) => p.name === n));
  if (unknown.length > 0)
    throw new Error(`Unknown part(s): ${unknown.join(", ")}; known: ${PARTS.map((p) => p.name).join(", ")}`);
  const selected = names.length === 0 ? PARTS : PARTS.filter((p) => names.includes(p.name));
  process.stderr.write(`flagpost loaded from ${builtPackageEntry()}\n`);
  const sections: string[] = [];
  for (const part of selected) {
    const section = await runPart(part, smoke);
    process.stdout.write(`${section}\n`);
    sections.push(section);
  }
  if (names.length === 0 && !smoke) {
    const header = `# flagpost benchmark results\n\nOne \`npm run bench\` run on this machine, of the built package (dist/), as users run it: \`npm run bench\` builds it from the working tree first. Medians over repeats; ratios are taken within the same run. Each part gives the 1-minute load before and after it, and is marked noisy when the load was above ${NOISY_LOAD} at its start.\n\n${machineReport(PACKAGES)}\n`;
    writeFileSync(new URL("./RESULTS.md", import.meta.url), `${header}\n${sections.join("\n")}`);
    process.stderr.write("wrote bench/RESULTS.md\n");
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
