import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

/**
 * vitest globalSetup: an empty directory for the run's one `npm pack` (pack-once.ts), given to
 * every test file, and removed when the run ends. It packs nothing itself: the first file that
 * needs the tarball does.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "flagpost-pack-"));
  project.provide("packDir", dir);
  return () => rm(dir, { recursive: true, force: true });
}
