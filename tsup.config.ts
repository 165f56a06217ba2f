import { writeFile } from "node:fs/promises";
import { defineConfig } from "tsup";
import { embedDashboardFiles } from "./adapters/http/dashboard/embed-plugin.js";

/**
 * The entries that load an optional peer with top-level await (adapters/kysely/index.ts says why).
 * require() cannot run such a module (ERR_REQUIRE_ASYNC_MODULE), so their "require" condition in
 * package.json points at a one-line CommonJS file that says what to do instead. The other entries'
 * "require" condition is the ES module itself, which Node 20.19+ loads with require().
 */
const ESM_ONLY = ["kysely", "nodemailer", "openfeature", "inbound", "testing"];

function esmOnlyStub(name: string): string {
  const spec = `flagpost/${name}`;
  return [
    '"use strict";',
    `// ${spec} loads its optional peer with top-level await, which require() cannot run.`,
    `throw new Error(${JSON.stringify(`${spec} is an ES module that require() cannot load: use import { … } from "${spec}", or await import("${spec}") in CommonJS`)});`,
    "",
  ].join("\n");
}

// One entry per subpath export plus the CLI. Code splitting keeps one copy of the core
// shared between entries, so `instanceof FlagpostError` holds across "flagpost" and "flagpost/http".
// `tsup --no-dts` (npm start's prestart) skips the declarations, which only the published package needs.
export default defineConfig((cli) => ({
  entry: {
    index: "src/index.ts",
    http: "adapters/http/index.ts",
    kysely: "adapters/kysely/index.ts",
    openfeature: "adapters/openfeature/index.ts",
    client: "src/client.ts",
    nodemailer: "adapters/nodemailer/index.ts",
    testing: "adapters/testing/index.ts",
    redis: "adapters/redis/index.ts",
    inbound: "adapters/inbound/index.ts",
    "inbound-providers": "adapters/inbound/providers/index.ts",
    cli: "cli/main.ts",
    // Not an import: the SQLite heavy-read thread's entry, which heavy-read-thread.ts starts by
    // its file name next to the chunks (dist/heavy-read-worker.js).
    "heavy-read-worker": "adapters/kysely/heavy-read-worker.ts",
    // The DKIM signing threads' entry, started the same way by signing-threads.ts.
    "signing-worker": "adapters/nodemailer/signing-worker.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts:
    cli.dts === false
      ? false
      : {
          entry: {
            index: "src/index.ts",
            http: "adapters/http/index.ts",
            kysely: "adapters/kysely/index.ts",
            nodemailer: "adapters/nodemailer/index.ts",
            openfeature: "adapters/openfeature/index.ts",
            client: "src/client.ts",
            testing: "adapters/testing/index.ts",
            redis: "adapters/redis/index.ts",
            inbound: "adapters/inbound/index.ts",
            "inbound-providers": "adapters/inbound/providers/index.ts",
          },
        },
  splitting: true,
  sourcemap: true,
  clean: true,
  // Drivers, frameworks, mailers and the test runner are the host app's choice: never bundled.
  // The dashboard's static files go into the bundle as strings: dist/ reads nothing from disk.
  esbuildPlugins: [embedDashboardFiles()],
  async onSuccess() {
    await Promise.all(ESM_ONLY.map((name) => writeFile(`dist/${name}.cjs`, esmOnlyStub(name))));
  },
  external: [
    /^kysely/,
    "better-sqlite3",
    "pg",
    "mysql2",
    /^nodemailer/,
    "mailparser",
    "smtp-server",
    "express",
    "fastify",
    /^hono/,
    /^@hono\//,
    /^@openfeature\//,
    // flagpost/testing runs inside the author's vitest, with the author's mailparser.
    /^vitest/,
    "rate-limiter-flexible",
    "ioredis",
  ],
}));
