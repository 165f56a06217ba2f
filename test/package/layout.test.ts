import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layout rules of docs/architecture.md that a reader cannot see at a glance, held by a test
 * instead of by review: production files stay small, the core imports no adapter, no driver and
 * no framework, and no adapter reaches into another.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAX_LINES = 300;
/** What src/ may import besides node: builtins and its own files. */
const CORE_PACKAGES = new Set(["zod", "murmurhash-js", "jstat"]);

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/** The module specifiers of a file's static imports, re-exports and dynamic imports. */
function specifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const found: string[] = [];
  // No "=" before "from": a constant whose strings say `from "` (the bounce phrase tables) is no import.
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;=]*?\sfrom\s+"([^"]+)"/g)) found.push(match[1]!);
  for (const match of text.matchAll(/(?:^|\n)\s*import\s+"([^"]+)"/g)) found.push(match[1]!);
  for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push(match[1]!);
  return found;
}

const PRODUCTION = [...filesUnder("src"), ...filesUnder("adapters"), ...filesUnder("cli")];

describe("the layout docs/architecture.md describes", () => {
  it(`keeps every production file at ${MAX_LINES} lines or fewer`, () => {
    expect(PRODUCTION.length).toBeGreaterThan(100);
    const long = PRODUCTION.map((file) => ({
      file,
      lines: readFileSync(join(ROOT, file), "utf8").split("\n").length - 1,
    })).filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("lets src/ import only its own files, node: builtins, zod, murmurhash-js and jstat", () => {
    const offending: string[] = [];
    for (const file of filesUnder("src")) {
      for (const specifier of specifiers(file)) {
        if (specifier.startsWith("node:") || CORE_PACKAGES.has(specifier)) continue;
        if (specifier.startsWith(".")) {
          const target = join(file, "..", specifier).split(sep).join("/");
          if (target.startsWith("src/")) continue;
        }
        offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("lets adapters and the CLI reach src/ only through its seams: ports, top-level files, index.ts", () => {
    const offending: string[] = [];
    const seams: string[] = [];
    for (const file of [...filesUnder("adapters"), ...filesUnder("cli")]) {
      for (const specifier of specifiers(file).filter((s) => s.startsWith("."))) {
        const target = join(file, "..", specifier).split(sep).join("/");
        if (!target.startsWith("src/")) continue;
        const parts = target.split("/");
        const seam = parts[1] === "ports" || parts.length === 2 || parts.at(-1) === "index.js";
        (seam ? seams : offending).push(`${file} → ${specifier}`);
      }
    }
    expect(seams.length).toBeGreaterThan(100);
    expect(offending).toEqual([]);
  });

  it("keeps each adapter out of the others (they meet in src/ and in the CLI)", () => {
    const offending: string[] = [];
    for (const file of filesUnder("adapters")) {
      const own = file.split("/")[1];
      for (const specifier of specifiers(file).filter((s) => s.startsWith("."))) {
        const target = join(file, "..", specifier).split(sep).join("/");
        if (target.startsWith("adapters/") && target.split("/")[1] !== own) offending.push(`${file} → ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("keeps engine differences in adapters/kysely/engines/: no engine === branch elsewhere, migrations included", () => {
    const kysely = filesUnder("adapters/kysely");
    expect(kysely.filter((file) => file.startsWith("adapters/kysely/engines/")).length).toBeGreaterThan(3);
    const branching = kysely.filter(
      (file) =>
        !file.startsWith("adapters/kysely/engines/") &&
        /\bengine\s*[!=]==/.test(readFileSync(join(ROOT, file), "utf8")),
    );
    expect(branching).toEqual([]);
  });
});
