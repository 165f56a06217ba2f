import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

/**
 * One `npm pack` per test run, shared by every test file that checks the tarball (test/package
 * and README's install section). A pack builds the whole package through `prepack` (tsup, with
 * declarations: a minute on a busy 2-core machine, and tsup's `clean` empties dist/ while other
 * files may read it), so two files each packing cost a build each for the same tarball.
 *
 * The files run in separate worker processes: vitest's globalSetup (pack-once-setup.ts) gives
 * them one empty directory for the run, the first file to ask claims it (an atomic mkdir) and
 * packs, the others wait for what it wrote there. Nothing packs unless a file asks, so running one
 * unrelated test file costs no build. Run without that globalSetup, a file packs on its own.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's directory for the shared tarball (pack-once-setup.ts). */
    packDir: string;
  }
}

export interface Packed {
  /** The tarball's path. */
  tarball: string;
  /** Its file name, as `npm pack` printed it. */
  filename: string;
  /** The paths packed, as `npm pack --json` lists them. */
  files: string[];
}

/** What the packing file writes for the others: the tarball, or why `npm pack` failed. */
type Outcome = { packed: Packed } | { error: string };

let mine: Promise<Packed> | undefined;

/** The tarball of this working tree, packed once per run. */
export function packOnce(): Promise<Packed> {
  mine ??= shared();
  return mine;
}

async function shared(): Promise<Packed> {
  const provided = inject("packDir") as string | undefined;
  const dir = provided ?? (await mkdtemp(join(tmpdir(), "flagpost-pack-")));
  const outcome = join(dir, "outcome.json");
  const claimed = await mkdir(join(dir, "claim")).then(
    () => true,
    (error: NodeJS.ErrnoException) => (error.code === "EEXIST" ? false : Promise.reject(error)),
  );
  if (claimed) {
    const result: Outcome = await pack(join(dir, "claim")).then(
      (packed) => ({ packed }),
      (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
    );
    // Written whole, then renamed: a waiting file never reads half of it.
    await writeFile(`${outcome}.part`, JSON.stringify(result));
    await rename(`${outcome}.part`, outcome);
  }
  // The packing file's own budget (its hook timeout) bounds this wait too.
  for (;;) {
    const text = await readFile(outcome, "utf8").catch(() => undefined);
    if (text !== undefined) {
      const result = JSON.parse(text) as Outcome;
      if ("error" in result) throw new Error(`npm pack failed: ${result.error}`);
      return result.packed;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `npm pack` of this tree into `dir` (it builds through `prepack`). */
async function pack(dir: string): Promise<Packed> {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as [{ filename: string; files: { path: string }[] }];
  return {
    tarball: join(dir, packed.filename),
    filename: packed.filename,
    files: packed.files.map((f) => f.path),
  };
}

/** Removes the directory of a pack made without the globalSetup (the run's own is removed by it). */
export async function removeOwnPack(): Promise<void> {
  if (inject("packDir") as string | undefined) return;
  const packed = await mine?.catch(() => undefined);
  if (packed) await rm(join(packed.tarball, "..", ".."), { recursive: true, force: true });
}
