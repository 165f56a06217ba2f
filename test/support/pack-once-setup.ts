import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

/**
 * vitest globalSetup: an empty directory for each run's one `npm pack` (pack-once.ts), given to
 * every test file, and removed when vitest exits. It packs nothing itself: the first file that
 * needs the tarball does. In watch mode each rerun gets a new directory, so it packs the tree as
 * it is then, not the tarball of an earlier run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), "flagpost-pack-"));
    dirs.push(dir);
    project.provide("packDir", dir);
  };
  await fresh();
  project.onTestsRerun(fresh);
  return async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };
}
