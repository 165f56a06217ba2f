import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The two sides of `npm run bench:compare`: the working tree (dist/ built by the script) and a
 * git commit built into a temporary directory. Both run this working tree's bench/ files: the
 * commit's directory gets a copy of them, so there "flagpost" (a package's import of its own name)
 * resolves to that commit's dist/ and every workload is the same code on both sides.
 */

export interface Side {
  /** "before" or "after". */
  name: string;
  /** What was built: a short commit and its subject, or "working tree". */
  label: string;
  /** The package root: package.json, dist/, node_modules, bench/. */
  root: string;
  /** A file of this side's bench/ (e.g. "flags.ts"), for imports and child processes. */
  url(file: string): URL;
  /** Removes what was built for this side (nothing for the working tree). */
  cleanup(): void;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const git = (...args: string[]) => execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8" }).trim();

/** A commit's subject, cut to fit a table cell. */
function subject(commit: string): string {
  const text = git("log", "-1", "--format=%s", commit);
  return text.length > 50 ? `${text.slice(0, 49)}…` : text;
}

function side(name: string, label: string, root: string, cleanup: () => void): Side {
  return { name, label, root, url: (file) => pathToFileURL(join(root, "bench", file)), cleanup };
}

/** The working tree as it is, run from its own dist/ (the npm script builds it first). */
export function workingTree(): Side {
  return side("after", `working tree (${git("rev-parse", "--short", "HEAD")} + changes)`, ROOT, () => undefined);
}

/**
 * The merge-base of HEAD and `ref` (so `main` compares against where this branch left it),
 * extracted with `git archive` into a temporary directory, its node_modules a link to this
 * checkout's (no install), built with tsup, and given this working tree's bench/.
 */
export function buildBefore(ref: string, log: (line: string) => void): Side {
  const base = git("merge-base", "HEAD", ref);
  const label = `${base.slice(0, 9)} (merge-base with ${ref}): ${subject(base)}`;
  const dir = mkdtempSync(join(tmpdir(), `flagpost-compare-${base.slice(0, 9)}-`));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    log(`building ${label} in ${dir}`);
    execFileSync("sh", ["-c", `git -C "${ROOT}" archive ${base} | tar -x -C "${dir}"`], { stdio: "inherit" });
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
    execFileSync(join(ROOT, "node_modules", ".bin", "tsup"), ["--silent", "--no-dts"], { cwd: dir, stdio: "inherit" });
    if (!existsSync(join(dir, "dist", "index.js"))) throw new Error(`tsup left no dist/index.js in ${dir}`);
    rmSync(join(dir, "bench"), { recursive: true, force: true });
    cpSync(join(ROOT, "bench"), join(dir, "bench"), { recursive: true });
    return side("before", label, dir, cleanup);
  } catch (error) {
    cleanup();
    throw error;
  }
}
