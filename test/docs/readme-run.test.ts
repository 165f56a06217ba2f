import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, isBackendEnabled, REQUIRE_ALL_VARIABLE, type TestDatabase } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";
import { closedPort, type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { tsBlocks } from "../support/markdown.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");
// Inside the repository, so bare imports resolve from node_modules and "flagpost" through tsconfig's paths.
const OUT = join(ROOT, "test", `.readme-run-${process.pid}`);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a README block needs to run on this machine, and what its two runs must show. */
interface Runner {
  /** Text only that block contains. */
  marks: string;
  env?: () => NodeJS.ProcessEnv;
  /** A block that serves: the path answered once it listens, and what must be true of the answer. */
  serves?: { path: string; check(res: Response, stdout: string): Promise<void> };
  /** Checks both runs of a block that ends by itself (each exited 0 already). */
  check?(first: Ran, second: Ran): void;
}

let app: TestApp;
let sink: SmtpSink;
let postgres: TestDatabase | undefined; // a database of its own: the block migrates it
// Like every PostgreSQL test: skipped without FLAGPOST_TEST_PG_URL, unless CI requires every backend.
const withoutPostgres = !isBackendEnabled("postgres") && process.env[REQUIRE_ALL_VARIABLE] !== "1";

const RUNNERS: Runner[] = [
  {
    marks: "app.use(toExpress(fp))",
    serves: {
      path: "/checkout?user=alice",
      check: async (res) => expect(await res.text()).toBe("old checkout"), // no flag in this block's app.db
    },
  },
  { marks: "PostgresDialect", env: () => ({ DATABASE_URL: postgres!.url }) },
  { marks: "createRemoteFlagClient", env: () => ({ FLAGPOST_URL: app.url, FLAGPOST_KEY: app.key }) },
  { marks: "FlagpostProvider", check: (first, second) => expect([first.stdout, second.stdout]).toEqual(["", ""]) },
  {
    marks: "nodemailerTransport",
    env: () => ({ SMTP_URL: sink.url }),
    check: (first, second) => {
      expect(["queued", "sent"]).toContain(first.stdout.trim());
      expect(["queued", "sent"]).toContain(second.stdout.trim());
      expect(sink.received).toHaveLength(1); // the second run's send is the first one, by its idempotency key
    },
  },
  {
    marks: 'from "resend"',
    env: () => ({ FLAGPOST_URL: app.url, FLAGPOST_API_KEY: app.key }),
    check: (first, second) => {
      expect(first.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.stdout).toBe(first.stdout); // the same email, not a second one nor an error
    },
  },
  {
    marks: "fp.events.enqueue",
    check: (first, second) => {
      expect(first.stdout.trim()).toBe("1 undefined"); // the tracked signup; enqueue's page_view is stored at close
      expect(second.stdout).toBe(first.stdout);
    },
  },
  {
    marks: 'scopes: ["flags:read", "flags:write", "flags:evaluate"]',
    serves: {
      path: "/dashboard/",
      check: async (res, stdout) => {
        expect(res.status).toBe(200);
        const flags = await fetch(new URL("/v1/flags", res.url), {
          headers: { authorization: `Bearer ${stdout.trim()}` },
        });
        expect(flags.status).toBe(200); // the printed key works
      },
    },
  },
];

function run(file: string, cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<Ran> } {
  const child = spawn(process.execPath, ["--import", TSX, file], {
    cwd,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(OUT, "tsconfig.json"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ran: Ran = { code: null, stdout: "", stderr: "" };
  child.stdout!.on("data", (d: Buffer) => (ran.stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (ran.stderr += d.toString()));
  const done = new Promise<Ran>((resolve) => child.once("exit", (code) => resolve({ ...ran, code })));
  return { child, done };
}

/** Runs a serving block until `path` answers (or 30 s pass), checks the answer, then stops it. */
async function runServer(file: string, cwd: string, runner: Runner): Promise<void> {
  const port = await closedPort();
  const { child, done } = run(file, cwd, { ...runner.env?.(), PORT: String(port) });
  let exited: Ran | undefined;
  void done.then((ran) => (exited = ran));
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) throw new Error(`${file} exited (${exited.code}) before it served:\n${exited.stderr}`);
      const res = await fetch(`http://127.0.0.1:${port}${runner.serves!.path}`).catch(() => undefined);
      if (res && (runner.serves!.path !== "/dashboard/" || stdout.includes("\n"))) {
        await runner.serves!.check(res, stdout);
        return;
      }
      if (Date.now() > deadline) throw new Error(`${file} did not answer on port ${port} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    if (!exited) child.kill("SIGTERM");
    await done;
  }
}

async function runToEnd(file: string, cwd: string, runner: Runner): Promise<Ran> {
  const ran = await run(file, cwd, runner.env?.() ?? {}).done;
  expect(ran.code, `${file} exited ${ran.code}:\n${ran.stderr}`).toBe(0);
  return ran;
}

describe("README snippets run as written, twice in a row", () => {
  const blocks: string[] = [];

  beforeAll(async () => {
    blocks.push(...tsBlocks(await readFile(join(ROOT, "README.md"), "utf8")));
    await mkdir(OUT, { recursive: true });
    await writeFile(join(OUT, "tsconfig.json"), JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"] }));
    app = await startApp();
    sink = await startSmtpSink();
    if (!withoutPostgres) postgres = await createTestDatabase("postgres");
  });

  afterAll(async () => {
    await app?.close();
    await sink?.close();
    await postgres?.drop();
    await rm(OUT, { recursive: true, force: true });
  });

  it("has one runner for every ts block (a new block needs one)", () => {
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const matching = RUNNERS.filter((runner) => block.includes(runner.marks));
      expect(matching, block.slice(0, 200)).toHaveLength(1);
    }
    for (const runner of RUNNERS)
      expect(
        blocks.filter((b) => b.includes(runner.marks)),
        runner.marks,
      ).toHaveLength(1);
  });

  for (const runner of RUNNERS) {
    const skip = runner.marks === "PostgresDialect" && withoutPostgres;
    it.skipIf(skip)(
      `runs the block with ${runner.marks} twice`,
      async () => {
        const block = blocks.find((b) => b.includes(runner.marks))!;
        const index = blocks.indexOf(block) + 1;
        const cwd = join(OUT, `block-${index}`); // its own app.db, flags.json, …
        await mkdir(cwd, { recursive: true });
        const file = join(OUT, `readme-${index}.ts`);
        await writeFile(file, block);
        if (runner.serves) {
          await runServer(file, cwd, runner);
          await runServer(file, cwd, runner);
        } else {
          const first = await runToEnd(file, cwd, runner);
          const second = await runToEnd(file, cwd, runner);
          runner.check?.(first, second);
        }
      },
      120_000,
    );
  }
});
