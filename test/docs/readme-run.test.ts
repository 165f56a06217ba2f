import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, isBackendEnabled, REQUIRE_ALL_VARIABLE, type TestDatabase } from "../support/databases.js";
import { expectDocumentedOutputs, type Ran, runShell, runTsServer, runTsToEnd } from "../support/doc-run.js";
import { blocksInOrder } from "../support/markdown.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { type DocServer, startDocServer, stopDocServer, writeReaderShell } from "./doc-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repository, so bare imports resolve from node_modules and "flagpost" through tsconfig's paths.
const OUT = join(ROOT, "test", `.readme-run-${process.pid}`);
const TSCONFIG = join(OUT, "tsconfig.json");

/** What a README block needs to run on this machine, and what its two runs must show. */
interface Runner {
  /** Text only that block contains. */
  marks: string;
  /** Why the block does not run here (another test runs it, or it is the server this test starts). */
  skip?: string;
  env?: () => NodeJS.ProcessEnv;
  /** A block that serves: the path answered once it listens, and what must be true of the answer. */
  serves?: { path: string; ready?(stdout: string): boolean; check(res: Response, stdout: string): Promise<void> };
  /** Checks a run of a block that ends by itself (it exited 0 already); `first` is the first pass's run. */
  check?(ran: Ran, first: Ran | undefined): void;
}

/** One `flagpost serve` (what `npm start` runs), as README's reader has it, shared by every block. */
let server: DocServer;
let sink: SmtpSink;
let postgres: TestDatabase | undefined; // a database of its own: the block migrates it
const withPostgres = isBackendEnabled("postgres") || process.env[REQUIRE_ALL_VARIABLE] === "1";

const RUNNERS: Runner[] = [
  { marks: "npm ci && npm pack", skip: "test/docs/readme-install.test.ts runs the install section" },
  { marks: "npm ci && npm start", skip: "this test starts `flagpost serve` itself, as npm start does" },
  { marks: "KEY=fp_..." },
  {
    marks: "app.use(toExpress(fp))",
    serves: {
      path: "/checkout?user=alice",
      check: async (res) => expect(await res.text()).toBe("old checkout"), // no flag in this block's app.db
    },
  },
  { marks: "PostgresDialect", env: () => (postgres ? { DATABASE_URL: postgres.url } : {}) },
  { marks: "createRemoteFlagClient", env: () => ({ FLAGPOST_URL: server.url, FLAGPOST_KEY: server.key }) },
  { marks: "FlagpostProvider", check: (ran) => expect(ran.stdout).toBe("") },
  {
    marks: "nodemailerTransport",
    env: () => ({ SMTP_URL: sink.url }),
    check: (ran) => {
      expect(["queued", "sent"]).toContain(ran.stdout.trim());
      expect(sink.received).toHaveLength(1); // the second run's send is the first one, by its idempotency key
    },
  },
  { marks: "Idempotency-Key: welcome/user-42" },
  {
    marks: 'from "resend"',
    env: () => ({ FLAGPOST_URL: server.url, FLAGPOST_API_KEY: server.key }),
    check: (ran, first) => {
      expect(ran.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
      if (first) expect(ran.stdout).toBe(first.stdout); // the same email, not a second one nor an error
    },
  },
  {
    marks: "fp.events.enqueue",
    check: (ran) => expect(ran.stdout.trim()).toBe("1 undefined"), // enqueue's page_view is stored at close
  },
  { marks: "Idempotency-Key: import-42" },
  {
    marks: "flagpost events purge",
    check: (ran) =>
      expect(ran.stdout).toMatch(
        /^Deleted \d+ events? with a timestamp before[^\n]*\nDeleted \d+ events? of user "user-42"\.\n$/,
      ),
  },
  {
    marks: 'scopes: ["flags:read", "flags:write", "flags:evaluate"]',
    serves: {
      path: "/dashboard/",
      ready: (stdout) => stdout.includes("\n"),
      check: async (res, stdout) => {
        expect(res.status).toBe(200);
        const flags = await fetch(new URL("/v1/flags", res.url), {
          headers: { authorization: `Bearer ${stdout.trim()}` },
        });
        expect(flags.status).toBe(200); // the printed key works
      },
    },
  },
  { marks: "FLAGPOST_TEST_PG_URL=", skip: "it runs the whole suite, this test among it" },
];

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const BLOCKS = blocksInOrder(README).filter((b) => b.language === "ts" || b.language === "sh");
const firstRuns = new Map<Runner, Ran>();
const shellVars: Record<string, string> = {}; // the reader's shell: KEY stays set once the first block set it

async function runBlock(runner: Runner, code: string, language: string, index: number): Promise<void> {
  const cwd = join(OUT, `block-${index}`); // its own app.db, flags.json, …
  await mkdir(cwd, { recursive: true });
  if (language === "sh") {
    const ran = await runShell(code, {
      cwd,
      host: server.host,
      vars: shellVars,
      env: { PATH: `${join(OUT, "bin")}:${process.env.PATH}`, FLAGPOST_DB: server.db, CURL_HOME: OUT },
      fill: (name, outputSoFar) => {
        if (name === "KEY") return server.key; // "the printed key"
        const id = name === "ID" ? /"id":"([^"]+)"/.exec(outputSoFar)?.[1] : undefined;
        if (!id) throw new Error(`no value for the placeholder ${name} in:\n${outputSoFar}`);
        return id;
      },
    });
    expectDocumentedOutputs(code, ran.stdout);
    runner.check?.(ran, firstRuns.get(runner));
    if (!firstRuns.has(runner)) firstRuns.set(runner, ran);
    return;
  }
  const file = join(OUT, `readme-${index}.ts`);
  await writeFile(file, code);
  if (runner.serves) return runTsServer(file, cwd, runner.env?.() ?? {}, TSCONFIG, runner.serves);
  const ran = await runTsToEnd(file, cwd, runner.env?.() ?? {}, TSCONFIG);
  runner.check?.(ran, firstRuns.get(runner));
  if (!firstRuns.has(runner)) firstRuns.set(runner, ran);
}

/**
 * README top to bottom, twice, as a reader following it would: every block in the order written,
 * against one `flagpost serve`, the second pass on what the first left behind (a second start of
 * an app, a send retried with its idempotency key, a flag that exists already).
 */
describe("README's blocks run in the order written against one server, twice", () => {
  beforeAll(async () => {
    await writeReaderShell(OUT);
    await writeFile(TSCONFIG, JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"] }));
    sink = await startSmtpSink();
    if (withPostgres) postgres = await createTestDatabase("postgres");
    server = await startDocServer(OUT);
  }, 60_000);

  afterAll(async () => {
    await stopDocServer(server);
    await sink?.close();
    await postgres?.drop();
    await rm(OUT, { recursive: true, force: true });
  });

  it("has one runner for every ts and sh block (a new block needs one)", () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    for (const block of BLOCKS) {
      const matching = RUNNERS.filter((runner) => block.code.includes(runner.marks));
      expect(matching, block.code.slice(0, 200)).toHaveLength(1);
    }
    for (const runner of RUNNERS)
      expect(BLOCKS.filter((b) => b.code.includes(runner.marks)).length, runner.marks).toBe(1);
  });

  for (const pass of [1, 2])
    BLOCKS.forEach((block, i) => {
      const runner = RUNNERS.find((r) => block.code.includes(r.marks));
      const title = `pass ${pass}, block ${i + 1} (${block.language}): ${runner?.marks ?? "no runner"}`;
      if (runner?.skip) return; // its runner says which test runs it instead
      it(title, () => runBlock(runner!, block.code, block.language, i + 1), 120_000);
    });
});
