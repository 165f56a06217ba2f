import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../", import.meta.url);
const DIST = new URL("dist/", ROOT).href;
const RUN_TSCONFIG = fileURLToPath(new URL("bench/tsconfig.run.json", ROOT));
const TSX_LOADER = fileURLToPath(new URL("node_modules/tsx/dist/loader.mjs", ROOT));

/**
 * Whether this process runs as `npm run bench` runs it: tsx with bench/tsconfig.run.json, whose
 * empty `paths` leave "flagpost" and "flagpost/…" to package.json `exports`, i.e. to dist/. tsx
 * puts the --tsconfig it was given in TSX_TSCONFIG_PATH, which the helper processes inherit. The
 * smoke tests (vitest, test/bench-smoke.test.ts) run the same parts on the sources instead.
 */
function runsBuiltPackage(): boolean {
  const tsconfig = process.env.TSX_TSCONFIG_PATH;
  return tsconfig !== undefined && resolve(tsconfig) === RUN_TSCONFIG;
}

/**
 * The file "flagpost" resolves to, checked to be in dist/: numbers taken on the sources under tsx
 * are not the numbers of the package users run (issue 30). Throws otherwise, naming the file.
 */
export function builtPackageEntry(): string {
  const entry = fileURLToPath(import.meta.resolve("flagpost"));
  const problem = !import.meta.resolve("flagpost").startsWith(DIST)
    ? `"flagpost" resolves to ${entry}, not to dist/`
    : !runsBuiltPackage()
      ? `tsx runs without bench/tsconfig.run.json (TSX_TSCONFIG_PATH=${process.env.TSX_TSCONFIG_PATH ?? ""}), so flagpost serve would run from cli/`
      : undefined;
  if (problem !== undefined) {
    throw new Error(
      `${problem}: run the benchmarks with npm run bench, which builds dist/ and runs tsx --tsconfig bench/tsconfig.run.json`,
    );
  }
  return entry;
}

/**
 * Node's arguments for `flagpost serve` of the same code the benchmark imports: the built CLI
 * (dist/cli.js, the package's bin) under npm run bench, cli/main.ts under tsx in the smoke tests.
 */
export function serveArgs(): string[] {
  return runsBuiltPackage()
    ? [fileURLToPath(new URL("dist/cli.js", ROOT)), "serve"]
    : ["--import", TSX_LOADER, fileURLToPath(new URL("cli/main.ts", ROOT)), "serve"];
}
