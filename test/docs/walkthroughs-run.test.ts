import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, describeIfBackend, isBackendEnabled, type TestDatabase } from "../support/databases.js";
import { expectDocumentedOutputs, type Ran, runShell, runTsServer, runTsToEnd } from "../support/doc-run.js";
import { blocksInOrder } from "../support/markdown.js";
import { closedPort, type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { type DocServer, startDocServer, stopDocServer, writeReaderShell } from "./doc-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repository, so bare imports resolve from node_modules and "flagpost" through tsconfig's paths.
const OUT = join(ROOT, "test", `.walkthroughs-run-${process.pid}`);
const TSCONFIG = join(OUT, "tsconfig.json");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** What one block of a walk-through needs to run here, and what its two runs must show. */
interface Runner {
  /** Text only that block of its doc contains. */
  marks: string;
  /** Why the block does not run here: it needs what this machine lacks, or another test runs it. */
  skip?: string;
  /** The doc's set-up for the blocks below it (http.md's `fp`): run as the head of each later ts block. */
  prelude?: true;
  /** Runs against the test PostgreSQL (DATABASE_URL), so only when FLAGPOST_TEST_PG_URL is set. */
  postgres?: true;
  env?: () => Promise<NodeJS.ProcessEnv> | NodeJS.ProcessEnv;
  /** A block that serves until stopped: the path answered once it listens, and what must be true of it. */
  serves?: { path: string; check(res: Response): Promise<void> };
  /** Checks a run of a block that ends by itself (it exited 0 already). */
  check?(ran: Ran): void;
}

/** An answer that shows `/v1` is mounted there: flagpost's own 401 for a request without a key. */
const mountedAt = (path: string) => ({
  path,
  check: async (res: Response) => {
    expect(res.status, `${res.url}`).toBe(401);
    expect(await res.json()).toMatchObject({ error: { code: "missing_api_key" } });
  },
});

// The reader's environment: the one `flagpost serve` every block shares (FLAGPOST_URL, FLAGPOST_KEY),
// the PostgreSQL of FLAGPOST_TEST_PG_URL as DATABASE_URL, an SMTP server as SMTP_URL. Each doc says
// which of these a block reads.
let server: DocServer;
let sink: SmtpSink;
let postgres: TestDatabase | undefined;
const reader = (): NodeJS.ProcessEnv => ({
  FLAGPOST_URL: server.url,
  FLAGPOST_KEY: server.key,
  ...(postgres && { DATABASE_URL: postgres.url }),
  SMTP_URL: sink.url,
});

const DOCS: Record<string, Runner[]> = {
  "flags.md": [
    { marks: 'fp.isEnabled("new-checkout", { userId: "u1", attributes' },
    { marks: "listen: () => pool.connect()", postgres: true },
    {
      marks: "/v1/flags/_snapshot -H",
      check: () => expect(readFileSync(join(OUT, "flags", "flags.json"), "utf8")).toMatch(/"flags":\[/),
    },
    { marks: "createRemoteFlagClient", check: (ran) => expect(ran.stderr).toBe("") }, // the bootstrap read, the server reached
    { marks: "exposures: { enabled: true" },
    { marks: "FlagpostProvider", check: (ran) => expect(ran.stderr).toBe("") },
  ],
  "http.md": [
    { marks: "const fp = createFlagpost({ storage: memoryStorage() });\nawait fp.ready();\n", prelude: true },
    { marks: "toNodeHandler(fp)).listen", serves: mountedAt("/v1/flags") },
    { marks: "toExpress(fp)", serves: mountedAt("/api/v1/flags") },
    { marks: "toFastify(fp)", serves: mountedAt("/api/v1/flags") },
    { marks: "toHono(fp)", serves: mountedAt("/t/acme/v1/flags") },
    {
      marks: "Deno.serve(handle)",
      skip: "Deno.serve and `export default { fetch }` are Deno's, Bun's and workers' entry points, not Node's; test/http/translators.test.ts serves toFetchHandler on @hono/node-server",
    },
    {
      marks: "postgresRateLimitStore(db)",
      skip: "two alternatives of one option, not a program (`db` and `url` are the app's); test/http/shared-rate-limit.test.ts runs both stores on PostgreSQL and Redis",
    },
  ],
  "storage.md": [
    { marks: "PostgresDialect({ pool: new pg.Pool({ connectionString }) })", postgres: true },
    { marks: "withStatementCache(database)" },
    { marks: "vitest run test/conformance", skip: "it runs test/conformance, which the suite runs on its own" },
    {
      marks: "heavyReads: { sqliteFile:",
      skip: "two alternatives of one option, not a program (`db` and `connectionString` are the app's); test/reliability-long/heavy-reads.test.ts opens both kinds the way serve does",
    },
  ],
  "emails.md": [
    { marks: "nodemailerTransport(", check: () => expect(sink.received.length).toBeGreaterThan(0) },
    { marks: '"unsubscribe": true', check: (ran) => expect(ran.stdout).toMatch(/"status":"queued"/) },
    { marks: "startInboundSmtp({", env: async () => ({ SMTP_PORT: String(await closedPort()) }) },
    { marks: "git clone --depth 1", skip: "it clones two repositories from GitHub: this test runs offline" },
    {
      marks: "FLAGPOST_BOUNCE_DOMAIN=bounce.acme.example",
      skip: "a second server on port 2525 that runs until stopped; test/cli/serve-inbound.test.ts starts serve with these settings",
    },
    { marks: "aws sns create-topic", skip: "it needs an AWS account" },
    {
      marks: "FLAGPOST_INBOUND_SES_TOPIC_ARNS=",
      skip: "a server that runs until stopped; test/cli/serve-inbound.test.ts starts serve with this setting",
    },
  ],
  "events.md": [{ marks: 'whenFull: "reject" } }', check: (ran) => expect(ran.stdout).toMatch(/queued: true/) }],
};

async function runBlock(doc: string, runner: Runner, code: string, language: string, index: number, prelude: string) {
  const name = `${doc.replace(".md", "")}-${index}`;
  const cwd = join(OUT, doc.replace(".md", "")); // the reader's directory for this doc (flags.json, …), both passes
  await mkdir(cwd, { recursive: true });
  const env = { ...reader(), ...(await runner.env?.()) };
  if (language !== "ts") {
    const ran = await runShell(code, {
      cwd,
      host: server.host,
      vars: {},
      env: { ...env, PATH: `${join(OUT, "bin")}:${process.env.PATH}`, CURL_HOME: OUT },
      fill: (placeholder) => {
        throw new Error(`no value for the placeholder ${placeholder}`);
      },
    });
    expectDocumentedOutputs(code, ran.stdout);
    return runner.check?.(ran);
  }
  const file = join(OUT, `${name}.ts`);
  await writeFile(file, `${prelude}${code}`);
  if (runner.serves) return runTsServer(file, cwd, env, TSCONFIG, runner.serves);
  runner.check?.(await runTsToEnd(file, cwd, env, TSCONFIG));
}

/**
 * Every docs walk-through, as a reader trying it would: the blocks in the order written, against
 * one `flagpost serve` (and the test PostgreSQL, an SMTP server), twice, the second pass on what
 * the first left behind. README has its own test (readme-run.test.ts); experiments.md and
 * webhooks.md run in docs-run.test.ts.
 */
describe("docs walk-throughs run in the order written, twice", () => {
  beforeAll(async () => {
    await writeReaderShell(OUT);
    await writeFile(
      TSCONFIG,
      JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"], compilerOptions: { types: ["node"] } }),
    );
    sink = await startSmtpSink();
    // A database of its own: the blocks migrate it.
    if (isBackendEnabled("postgres")) postgres = await createTestDatabase("postgres");
    server = await startDocServer(OUT, { FLAGPOST_PUBLIC_URL: "https://flagpost.acme.example" }); // emails.md says so
  }, 60_000);

  afterAll(async () => {
    await stopDocServer(server);
    await sink?.close();
    await postgres?.drop();
    await rm(OUT, { recursive: true, force: true });
  });

  for (const [doc, runners] of Object.entries(DOCS)) {
    const blocks = blocksInOrder(readFileSync(join(ROOT, "docs", doc), "utf8")).filter((b) =>
      ["ts", "sh", "bash"].includes(b.language),
    );
    const runnerOf = (code: string) => runners.find((r) => code.includes(r.marks));

    it(`docs/${doc}: one runner for every ts and shell block (a new block needs one)`, () => {
      for (const block of blocks)
        expect(
          runners.filter((r) => block.code.includes(r.marks)),
          block.code.slice(0, 200),
        ).toHaveLength(1);
      for (const runner of runners)
        expect(blocks.filter((b) => b.code.includes(runner.marks)).length, runner.marks).toBe(1);
    });

    for (const pass of [1, 2]) {
      let prelude = "";
      blocks.forEach((block, i) => {
        const runner = runnerOf(block.code);
        if (runner?.prelude) prelude = block.code;
        if (!runner || runner.skip || runner.prelude) return; // the runner says why; the count test needs one
        const head = prelude;
        const title = `docs/${doc}, pass ${pass}, block ${i + 1} (${block.language}): ${runner.marks}`;
        const register = () => it(title, () => runBlock(doc, runner, block.code, block.language, i + 1, head), 120_000);
        if (runner.postgres) describeIfBackend("postgres", title, register);
        else register();
      });
    }
  }

  // tsx strips types without checking them: a renamed option would still run. Every ts block ran
  // above (with http.md's prelude) must also compile as written.
  it("every ts block it ran type-checks as written", async () => {
    const ran = (await readdir(OUT)).filter((name) => name.endsWith(".ts"));
    expect(ran.length).toBeGreaterThan(10);
    const result = await promisify(execFile)(process.execPath, [TSC, "--noEmit", "-p", TSCONFIG], { cwd: ROOT }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 180_000);
});
