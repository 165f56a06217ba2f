import { execFile } from "node:child_process";
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { fencedBlocks, section } from "../support/markdown.js";
import { packOnce, removeOwnPack } from "../support/pack-once.js";

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = await readFile(join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  await removeOwnPack();
});

/**
 * README's install section is the first thing a newcomer runs: until the package is on the
 * registry it must be a path that works from a clone. This runs it: `npm pack` in this clone, then
 * README's install line, verbatim, in an app next to it, and the app imports what it installed.
 */
describe("README's install section", () => {
  const install = section(README, "Install");
  const [block] = fencedBlocks(install, "sh");

  it("labels the registry line as for once the package is published", () => {
    expect(install).toMatch(/[Oo]nce it is published, `npm install flagpost`/);
    expect(block).not.toMatch(/^npm install flagpost\s*$/m);
  });

  it("installs the tarball npm pack writes, into an app next to the clone", async () => {
    const tarball = `${pkg.name}-${pkg.version}.tgz`;
    expect(block).toMatch(/^npm ci && npm pack\b/m);
    const installLine = block!.split("\n").find((line) => line.includes("npm install"));
    expect(installLine).toBe(`cd ../your-app && npm install ../flagpost/${tarball}`);

    dir = await mkdtemp(join(tmpdir(), "flagpost-install-"));
    const clone = join(dir, "flagpost");
    const app = join(dir, "your-app");
    await mkdir(clone);
    // `npm pack` in this clone (it builds through prepack; the run's one pack, shared with
    // test/package: pack-once.ts); the tarball goes where a clone's would be.
    const packed = await packOnce();
    expect(packed.filename).toBe(tarball);
    await copyFile(packed.tarball, join(clone, tarball));

    // The app as a user has it. Its runtime dependencies come from the registry in real life; this
    // machine may be offline, so they are put in place first and npm runs with --offline.
    await mkdir(join(app, "node_modules"), { recursive: true });
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "your-app", private: true, type: "module" }));
    for (const name of Object.keys(pkg.dependencies))
      await cp(join(ROOT, "node_modules", name), join(app, "node_modules", name), { recursive: true });
    await exec("bash", ["-c", installLine!], {
      cwd: clone,
      env: { ...process.env, npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" },
    });

    const manifest = JSON.parse(await readFile(join(app, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.flagpost).toBe(`file:../flagpost/${tarball}`);
    const script = `
      import { createFlagpost, memoryStorage } from "flagpost";
      const fp = createFlagpost({ storage: memoryStorage() });
      await fp.ready();
      await fp.flags.create({ key: "installed", enabled: true });
      console.log(fp.isEnabled("installed", { userId: "u1" }));
      await fp.close();`;
    const ran = await exec(process.execPath, ["--input-type=module", "-e", script], { cwd: app });
    expect(ran.stdout.trim()).toBe("true");
  }, 300_000); // npm pack builds the whole package: about a minute on a busy machine
});
