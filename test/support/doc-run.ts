import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { closedPort } from "./smtp-sink.js";

/**
 * Runs the code blocks of a Markdown walk-through as a reader would: TypeScript blocks with tsx,
 * shell blocks with bash, and checks what each printed against what the text says it prints.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript file with tsx, as `npx tsx file.ts` would. */
export function runTs(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  tsconfig: string,
): { child: ChildProcess; done: Promise<Ran> } {
  const child = spawn(process.execPath, ["--import", TSX, file], {
    cwd,
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ran: Ran = { code: null, stdout: "", stderr: "" };
  child.stdout!.on("data", (d: Buffer) => (ran.stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (ran.stderr += d.toString()));
  const done = new Promise<Ran>((resolve) => child.once("exit", (code) => resolve({ ...ran, code })));
  return { child, done };
}

/** Runs a block that ends by itself; it must exit 0. */
export async function runTsToEnd(file: string, cwd: string, env: NodeJS.ProcessEnv, tsconfig: string): Promise<Ran> {
  const ran = await runTs(file, cwd, env, tsconfig).done;
  expect(ran.code, `${file} exited ${ran.code}:\n${ran.stderr}`).toBe(0);
  return ran;
}

/**
 * Runs a block that serves until `path` answers on the PORT it is given (or 60 s pass), hands the
 * answer and its output so far to `check`, then stops it with SIGTERM.
 */
export async function runTsServer(
  file: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  tsconfig: string,
  serves: { path: string; ready?(stdout: string): boolean; check(res: Response, stdout: string): Promise<void> },
): Promise<void> {
  const port = await closedPort();
  const { child, done } = runTs(file, cwd, { ...env, PORT: String(port) }, tsconfig);
  let exited: Ran | undefined;
  void done.then((ran) => (exited = ran));
  let stdout = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  try {
    const deadline = Date.now() + 60_000; // tsx compiles the block first: slow on a busy machine
    for (;;) {
      if (exited) throw new Error(`${file} exited (${exited.code}) before it served:\n${exited.stderr}`);
      const res = await fetch(`http://127.0.0.1:${port}${serves.path}`).catch(() => undefined);
      if (res && (serves.ready?.(stdout) ?? true)) return await serves.check(res, stdout);
      if (Date.now() > deadline) throw new Error(`${file} did not answer on port ${port} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    if (!exited) child.kill("SIGTERM");
    await done;
  }
}

/** `NAME=value   # what to put there`, where the value is a placeholder ("fp_...", "01…"). */
const PLACEHOLDER = /^([A-Z_]+)=\S*(?:\.\.\.|…)\S*(?:\s+#.*)?$/;

/**
 * Runs a shell block with bash, `set -e`. A placeholder line (`KEY=fp_...   # the printed key`)
 * splits the block: the part before it runs first, then `fill(name, outputSoFar)` gives the value
 * a reader would copy from what they saw, and the rest runs with it in the environment.
 * `localhost:3000` becomes `host`, where the test's server listens. curl ends each answer with a
 * newline (a .curlrc in CURL_HOME, if the caller sets one), as a terminal shows them apart.
 */
export async function runShell(
  block: string,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    host: string;
    fill(name: string, outputSoFar: string): string;
    /** The reader's shell variables: what earlier blocks set, and what this one sets for later ones. */
    vars: Record<string, string>;
  },
): Promise<Ran> {
  const script = block.replaceAll("localhost:3000", options.host);
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, ...options.vars };
  const all: Ran = { code: 0, stdout: "", stderr: "" };
  let part: string[] = [];
  const flush = async () => {
    if (part.join("").trim() === "") return;
    const ran = await bash(`set -e\n${part.join("\n")}\n`, options.cwd, env);
    all.stdout += ran.stdout;
    all.stderr += ran.stderr;
    expect(ran.code, `the shell block failed:\n${part.join("\n")}\n${ran.stderr}`).toBe(0);
    part = [];
  };
  for (const line of script.split("\n")) {
    const placeholder = PLACEHOLDER.exec(line);
    if (!placeholder) {
      part.push(line);
      continue;
    }
    await flush();
    const value = options.fill(placeholder[1]!, all.stdout);
    env[placeholder[1]!] = value;
    options.vars[placeholder[1]!] = value;
  }
  await flush();
  return all;
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const ran: Ran = { code: null, stdout: "", stderr: "" };
    child.stdout.on("data", (d: Buffer) => (ran.stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (ran.stderr += d.toString()));
    child.once("exit", (code) => resolve({ ...ran, code }));
  });
}

/**
 * What a shell block says it prints: each `# {…}` or `# name: …` comment line under a command,
 * up to a run of spaces (what follows is explanation), with "…" standing for any text.
 */
export function documentedOutputs(block: string): RegExp[] {
  return block
    .split("\n")
    .filter((line) => /^# (\{|[a-z-]+: )/.test(line))
    .map((line) => {
      const shown = line
        .slice(2)
        .split(/\s{3,}/)[0]!
        .trim();
      const pattern = shown
        .split("…")
        .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*?");
      return new RegExp(`^${pattern}$`, "i");
    });
}

/** Each documented output must be a line of what the block printed. */
export function expectDocumentedOutputs(block: string, stdout: string): void {
  const lines = stdout.split(/\r?\n/).map((line) => line.trim());
  for (const pattern of documentedOutputs(block))
    expect(
      lines.some((line) => pattern.test(line)),
      `the block says it prints ${pattern}, but printed:\n${stdout}`,
    ).toBe(true);
}
