import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packOnce, removeOwnPack } from "../support/pack-once.js";

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface PackageJson {
  exports: Record<string, string | { types: string; import: string }>;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
}

/**
 * What users install is the `npm pack` tarball, not this tree: pack it (which builds through
 * `prepack`; once per run, test/support/pack-once.ts), install it into an empty app, and import,
 * type-check and run every entry point. An export-map or declaration mistake fails here instead of in a user's app.
 */
describe("the published package", () => {
  let dir: string;
  let app: string;
  /** An app with the tarball and its dependencies only: no optional peer. */
  let bare: string;
  let files: string[];
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
  const subpaths = Object.keys(pkg.exports).filter((p) => p !== "./package.json");

  beforeAll(async () => {
    // The run's one tarball (pack-once.ts), shared with README's install test.
    const packed = await packOnce();
    files = packed.files;
    dir = await mkdtemp(join(tmpdir(), "flagpost-pack-"));
    app = join(dir, "app");
    const modules = join(app, "node_modules");
    await mkdir(join(modules, "flagpost"), { recursive: true });
    await exec("tar", ["-xzf", packed.tarball, "-C", join(modules, "flagpost"), "--strip-components=1"]);
    // The app brings the runtime dependencies and the optional peers it uses, as a user's would.
    const bring = [
      ...Object.keys(pkg.dependencies),
      "kysely",
      "better-sqlite3",
      "nodemailer",
      "mailparser",
      "smtp-server",
      "@openfeature/server-sdk",
      "@openfeature/core",
      "vitest",
      "@types/node",
      "undici-types",
      "typescript",
    ];
    for (const scope of ["@types", "@openfeature"]) await mkdir(join(modules, scope), { recursive: true });
    for (const name of bring) await symlink(join(ROOT, "node_modules", name), join(modules, name), "dir");
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));

    bare = join(dir, "bare");
    await mkdir(join(bare, "node_modules", "flagpost"), { recursive: true });
    await exec("tar", ["-xzf", packed.tarball, "-C", join(bare, "node_modules", "flagpost"), "--strip-components=1"]);
    for (const name of Object.keys(pkg.dependencies)) {
      await symlink(join(ROOT, "node_modules", name), join(bare, "node_modules", name), "dir");
    }
    await writeFile(join(bare, "package.json"), JSON.stringify({ name: "bare", private: true, type: "module" }));
  }, 300_000); // the run's one npm pack (which builds the whole package) may be under way in another file

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await removeOwnPack();
  });

  it("ships only the build, the README and the licence", () => {
    for (const path of files) expect(path, path).toMatch(/^(dist\/|package\.json$|README\.md$|LICENSE$)/);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
  });

  it("runs nothing when installed: no prepare or install script ships", () => {
    const shipped = JSON.parse(readFileSync(join(app, "node_modules", "flagpost", "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    for (const hook of ["prepare", "preinstall", "install", "postinstall"]) {
      expect(shipped.scripts?.[hook], hook).toBeUndefined();
    }
  });

  it("has a JavaScript and a declaration file for every export", () => {
    for (const subpath of subpaths) {
      const target = pkg.exports[subpath] as { types: string; import: string };
      expect(files, subpath).toContain(target.import.replace(/^\.\//, ""));
      expect(files, subpath).toContain(target.types.replace(/^\.\//, ""));
    }
  });

  it("imports every entry point as ESM and finds the public names", async () => {
    const names: Record<string, string[]> = {
      ".": ["createFlagpost", "memoryStorage", "FlagpostError", "evaluate"],
      "./http": ["toNodeHandler", "toExpress", "toFastify", "toHono", "toFetchHandler", "createHandler"],
      "./kysely": ["kyselyStorage", "postgresRateLimitStore"],
      "./nodemailer": ["nodemailerTransport"],
      "./inbound": ["mailReportParser"],
      "./inbound/providers": ["sesSource", "sendgridSource", "mailgunSource", "postmarkSource"],
      "./openfeature": ["FlagpostProvider"],
      "./client": ["createRemoteFlagClient"],
      "./testing": ["describeStorageConformance", "describeTransportConformance"],
      "./redis": ["redisRateLimitStore"],
    };
    const script = subpaths
      .map((subpath) => {
        const spec = subpath === "." ? "flagpost" : `flagpost/${subpath.slice(2)}`;
        return `{ const m = await import(${JSON.stringify(spec)}); for (const n of ${JSON.stringify(names[subpath] ?? [])}) if (typeof m[n] === "undefined") throw new Error(${JSON.stringify(spec)} + " lacks " + n); }`;
      })
      .join("\n");
    await writeFile(join(app, "imports.mjs"), `${script}\nconsole.log("ok");\n`);
    const { stdout } = await exec(process.execPath, ["imports.mjs"], { cwd: app });
    expect(stdout.trim()).toBe("ok");
  });

  it("type-checks an app against the shipped declarations", async () => {
    await writeFile(
      join(app, "app.ts"),
      [
        'import { createFlagpost, memoryStorage, type Flag } from "flagpost";',
        'import { toNodeHandler, type HttpOptions } from "flagpost/http";',
        'import { kyselyStorage, postgresRateLimitStore } from "flagpost/kysely";',
        'import type { StorageHarness } from "flagpost/testing";',
        'import { redisRateLimitStore } from "flagpost/redis";',
        'import { postmarkSource } from "flagpost/inbound/providers";',
        "const fp = createFlagpost({ storage: memoryStorage() });",
        "const options: HttpOptions = { bodyLimit: 1024, inbound: [postmarkSource({ user: 'u', password: 'p' })] };",
        "const handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = toNodeHandler(fp, options);",
        "const flag: Promise<Flag> = fp.flags.get('x');",
        "const harness: StorageHarness = { name: 'memory', create: async () => memoryStorage(), destroy: (s) => s.close() };",
        "void handler; void flag; void kyselyStorage; void postgresRateLimitStore; void redisRateLimitStore; void harness;",
      ].join("\n"),
    );
    const tsconfig = {
      compilerOptions: {
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
      },
      files: ["app.ts"],
    };
    await writeFile(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    const result = await exec(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], {
      cwd: app,
    }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 120_000);

  it("runs flagpost/testing's storage suite on a storage from outside, with the app's vitest", async () => {
    // What an outside author writes: their Storage (here memoryStorage, taken from the package as
    // any user would) handed to the suite the project's own tests run.
    await writeFile(
      join(app, "memory.test.mjs"),
      [
        'import { memoryStorage } from "flagpost";',
        'import { describeStorageConformance } from "flagpost/testing";',
        "describeStorageConformance({",
        '  name: "memory from the tarball",',
        "  create: async () => memoryStorage(),",
        "  destroy: (storage) => storage.close(),",
        '  skip: { durable: "memory keeps nothing once closed", shared: "one process only" },',
        "});",
      ].join("\n"),
    );
    const vitest = join(app, "node_modules", "vitest", "vitest.mjs");
    const { stdout } = await exec(process.execPath, [vitest, "run", "--reporter=dot", "memory.test.mjs"], {
      cwd: app,
      env: { ...process.env, NO_COLOR: "1", CI: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const passed = /Tests\s+(\d+) passed/.exec(stdout);
    expect(stdout).not.toMatch(/failed/);
    expect(Number(passed?.[1])).toBeGreaterThan(50);
  }, 120_000);

  it("names the missing optional peer of an adapter entry, and needs none for the others", async () => {
    const peerOf: Record<string, string> = {
      "./kysely": "kysely",
      "./nodemailer": "nodemailer",
      "./openfeature": "@openfeature/server-sdk and @openfeature/core",
      "./testing": "vitest",
      "./inbound": "mailparser and smtp-server",
    };
    const script = subpaths
      .map((subpath) => {
        const spec = subpath === "." ? "flagpost" : `flagpost/${subpath.slice(2)}`;
        return `await import(${JSON.stringify(spec)}).then(() => console.log(${JSON.stringify(`${spec}: ok`)}), (e) => console.log(${JSON.stringify(`${spec}: `)} + e.message));`;
      })
      .join("\n");
    await writeFile(join(bare, "imports.mjs"), script);
    const { stdout } = await exec(process.execPath, ["imports.mjs"], { cwd: bare });
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(subpaths.length);
    for (const subpath of subpaths) {
      const spec = subpath === "." ? "flagpost" : `flagpost/${subpath.slice(2)}`;
      const peer = peerOf[subpath];
      // flagpost/http needs no framework at run time: the mounts only take the app they are given.
      // Every missing peer at once: "the packages a and b: npm install a b".
      const install = peer?.split(" and ").join(" ");
      const expected =
        peer === undefined
          ? `${spec}: ok`
          : `${spec}: ${spec} needs the package${peer.includes(" and ") ? "s" : ""} ${peer}: npm install ${install}`;
      expect(lines, spec).toContain(expected);
    }
  });

  it("tells the CLI user which package a database needs, and runs --help without any", async () => {
    const bin = join(bare, "node_modules", "flagpost", pkg.bin.flagpost!);
    const help = await exec(process.execPath, [bin, "--help"], { cwd: bare });
    expect(help.stdout).toContain("Usage: flagpost <command>");
    const failed = await exec(process.execPath, [bin, "migrate"], {
      cwd: bare,
      env: { ...process.env, FLAGPOST_DB: "" },
    }).then(
      () => ({ stderr: "exited 0", code: 0 }),
      (error: { stderr: string; code: number }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(
      /^flagpost: FLAGPOST_DB points to a SQLite database, which needs the package (better-sqlite3|kysely): npm install \1$/,
    );
  });

  it("loads from CommonJS: require() of the plain entries, a clear message for the ones with a peer", async () => {
    await writeFile(
      join(app, "require.cjs"),
      [
        'const { createFlagpost, memoryStorage } = require("flagpost");',
        'const { toNodeHandler } = require("flagpost/http");',
        "const fp = createFlagpost({ storage: memoryStorage() });",
        'fp.ready().then(() => fp.flags.create({ key: "cjs", enabled: true })).then(() => {',
        '  console.log(typeof toNodeHandler, fp.isEnabled("cjs"));',
        '  try { require("flagpost/kysely"); } catch (e) { console.log(e.message); }',
        "  return fp.close();",
        "});",
      ].join("\n"),
    );
    const { stdout } = await exec(process.execPath, ["require.cjs"], { cwd: app });
    expect(stdout.trim().split("\n")).toEqual([
      "function true",
      'flagpost/kysely is an ES module that require() cannot load: use import { … } from "flagpost/kysely", or await import("flagpost/kysely") in CommonJS',
    ]);
  });

  it("installs a working flagpost command", async () => {
    const bin = join(app, "node_modules", "flagpost", pkg.bin.flagpost!);
    const { stdout } = await exec(process.execPath, [bin, "--help"], { cwd: app });
    expect(stdout).toContain("Usage: flagpost <command>");
  });
});
