import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tsBlocks } from "../support/markdown.js";

// README's ts blocks and docs/clients-node.md's (issue 27: each a whole program, so the names it
// shows — getValue, getValueDetail, the provider's resolvers — cannot drift) type-check as written.
// One tsc over both docs' blocks: each run checks the sources the blocks import (most of src/ and
// adapters/), which costs far more than the blocks themselves. Each doc's test reads only the
// errors in its own blocks' files.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = join(ROOT, "test", ".snippets"); // inside the repo, so tsconfig's "flagpost" paths apply
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** Each doc, the prefix of its blocks' file names, and how it makes a block a module. */
const DOCS = [
  // A README block without import or export is a script: `export {}` keeps its names its own.
  {
    doc: "README.md",
    prefix: "readme",
    asModule: (code: string) => (code.includes("import ") || code.includes("export ") ? code : `${code}\nexport {};\n`),
  },
  { doc: "docs/clients-node.md", prefix: "clients-node", asModule: (code: string) => code },
] as const;

let blockCounts: Record<string, number>;
/** tsc's report, one line or more per error, each starting with the file's path under OUT. */
let report: string;

beforeAll(async () => {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  blockCounts = {};
  for (const { doc, prefix, asModule } of DOCS) {
    const blocks = tsBlocks(await readFile(join(ROOT, doc), "utf8"));
    blockCounts[doc] = blocks.length;
    await Promise.all(blocks.map((code, i) => writeFile(join(OUT, `${prefix}-${i + 1}.ts`), asModule(code))));
  }
  await writeFile(
    join(OUT, "tsconfig.json"),
    JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"], compilerOptions: { types: ["node"] } }),
  );
  report = await promisify(execFile)(
    process.execPath,
    [TSC, "--noEmit", "--pretty", "false", "-p", join(OUT, "tsconfig.json")],
    {
      cwd: ROOT,
    },
  ).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}, 180_000); // tsc over the blocks and the sources they import: ~10 s idle, far more on a busy machine

afterAll(async () => rm(OUT, { recursive: true, force: true }));

/** The lines of tsc's report about `prefix`'s files, with what follows each (its explanation). */
function errorsOf(prefix: string): string {
  const entries = report.split(/\n(?=\S)/).filter((entry) => entry.trim() !== "");
  const own = entries.filter((entry) => entry.startsWith(`test/.snippets/${prefix}-`));
  // An error tsc cannot place in any block's file (a broken tsconfig, a crash) fails both docs.
  const unplaced = entries.filter((entry) => !DOCS.some((d) => entry.startsWith(`test/.snippets/${d.prefix}-`)));
  return [...own, ...unplaced].join("\n");
}

describe("doc snippets type-check as written", () => {
  it("README's ts blocks", () => {
    expect(blockCounts["README.md"]).toBeGreaterThan(0);
    expect(errorsOf("readme"), `README snippets do not compile (${blockCounts["README.md"]} blocks)`).toBe("");
  });

  it("docs/clients-node.md's three blocks", () => {
    expect(blockCounts["docs/clients-node.md"]).toBe(3);
    expect(errorsOf("clients-node")).toBe("");
  });
});
