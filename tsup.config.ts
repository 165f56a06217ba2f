import { defineConfig } from "tsup";
import { embedDashboardFiles } from "./adapters/http/dashboard/embed-plugin.js";

// One entry per subpath export plus the CLI. Code splitting keeps one copy of the core
// shared between entries, so `instanceof FlagpostError` holds across "flagpost" and "flagpost/http".
export default defineConfig({
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
    cli: "cli/main.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: {
    entry: {
      index: "src/index.ts",
      http: "adapters/http/index.ts",
      kysely: "adapters/kysely/index.ts",
      nodemailer: "adapters/nodemailer/index.ts",
      inbound: "adapters/inbound/index.ts",
      openfeature: "adapters/openfeature/index.ts",
      client: "src/client.ts",
      testing: "adapters/testing/index.ts",
      redis: "adapters/redis/index.ts",
    },
  },
  splitting: true,
  sourcemap: true,
  clean: true,
  // Drivers, frameworks, mailers and the test runner are the host app's choice: never bundled.
  // The dashboard's static files go into the bundle as strings: dist/ reads nothing from disk.
  esbuildPlugins: [embedDashboardFiles()],
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
});
