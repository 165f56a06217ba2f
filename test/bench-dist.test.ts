import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SENDER_SIDE_REASONS as BENCH_SENDER_SIDE } from "../bench/bounces/sender-side-reasons.js";
import { SENDER_SIDE_REASONS } from "../src/emails/bounce-classification.js";

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const BENCH = join(ROOT, "bench");

/** Every .ts file under bench/, relative to the root. */
function benchFiles(dir = BENCH): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? benchFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [relative(ROOT, join(dir, entry.name))]
        : [],
  );
}

/**
 * Issue 30: the benchmarks measure the built package (dist/), as users run it. They import flagpost
 * by its package names, which `npm run bench` (tsx --tsconfig bench/tsconfig.run.json) resolves
 * through package.json `exports`; the runner refuses to start when "flagpost" is anywhere else.
 * Resolving needs no dist/ on disk, so these tests build nothing.
 */
describe("the benchmarks run the built package", () => {
  let dir: string;
  let probe: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-bench-dist-"));
    probe = join(dir, "probe.mts");
    const guard = join(BENCH, "lib", "built-package.ts");
    await writeFile(
      probe,
      `import { builtPackageEntry, serveArgs } from ${JSON.stringify(guard)};\n` +
        `try { console.log(JSON.stringify({ entry: builtPackageEntry(), serve: serveArgs() })); }\n` +
        `catch (error) { console.log(JSON.stringify({ error: (error as Error).message, serve: serveArgs() })); }\n`,
    );
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function runProbe(tsconfig?: string): Promise<{ entry?: string; error?: string; serve: string[] }> {
    const args = tsconfig === undefined ? [probe] : ["--tsconfig", tsconfig, probe];
    const env = { ...process.env };
    delete env.TSX_TSCONFIG_PATH;
    const { stdout } = await exec(TSX, args, { cwd: ROOT, env });
    return JSON.parse(stdout) as { entry?: string; error?: string; serve: string[] };
  }

  it("resolves flagpost to dist/ under npm run bench's tsconfig, and its flagpost serve is dist/cli.js", async () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.bench).toBe("tsup --silent --no-dts && tsx --tsconfig bench/tsconfig.run.json bench/run.ts");
    const result = await runProbe("bench/tsconfig.run.json");
    expect(result.error).toBeUndefined();
    expect(result.entry).toBe(join(ROOT, "dist", "index.js"));
    expect(result.serve).toEqual([join(ROOT, "dist", "cli.js"), "serve"]);
  });

  it("refuses to run on the sources (the root tsconfig's paths)", async () => {
    const result = await runProbe();
    expect(result.error).toContain(join(ROOT, "src", "index.ts"));
    expect(result.error).toContain("not to dist/");
    expect(result.serve).toContain(join(ROOT, "cli", "main.ts"));
  });

  it("imports no module of src/, adapters/ or cli/ by path, only flagpost's package names", () => {
    const byPath = /from\s+["'](?:\.\.\/)+(?:src|adapters|cli)\/|import\(\s*["'](?:\.\.\/)+(?:src|adapters|cli)\//;
    const offenders = benchFiles().filter((file) => byPath.test(readFileSync(join(ROOT, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("keeps the corpus runner's copy of the sender-side bounce reasons equal to the policy's", () => {
    expect([...BENCH_SENDER_SIDE].sort()).toEqual([...SENDER_SIDE_REASONS].sort());
  });
});
