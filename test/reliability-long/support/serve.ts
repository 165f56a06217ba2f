import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { spawnCli, waitForOutput } from "../../support/cli.js";

/**
 * `flagpost serve` as a child process for the long reliability suites: started from source,
 * killed with SIGKILL or stopped with SIGTERM, its resident memory read from /proc.
 */

export const API_KEY = "reliability-long-key-0123456789";

/** The per-key limit is not what these suites test: high enough never to answer 429. */
export const UNLIMITED = { FLAGPOST_RATE_LIMIT_BURST: "100000000", FLAGPOST_RATE_LIMIT_PER_SECOND: "100000000" };

export interface Served {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  /** Date.now() when the process logged "listening". */
  readonly listeningAt: number;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Its warning and error log lines so far (the first 200): what explains a figure off its bound. */
  problems(): string[];
}

export async function startServe(env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawnCli(["serve"], { PORT: "0", FLAGPOST_API_KEY: API_KEY, ...UNLIMITED, ...env });
  let seen = "";
  let partial = "";
  const problems: string[] = [];
  const read = (d: Buffer) => {
    seen = keepTail(seen + d.toString());
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines)
      if (problems.length < 200 && /^\{"time":"[^"]*","level":"(warn|error)"/.test(line)) problems.push(line);
  };
  child.stdout!.on("data", read);
  child.stderr!.on("data", read);
  const output = await waitForOutput(child, /"msg":"listening"/);
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'))!;
  return {
    child,
    pid: child.pid!,
    url: (JSON.parse(line) as { url: string }).url,
    listeningAt: Date.now(),
    output: () => seen,
    problems: () => [...problems],
  };
}

/** The last 64 KB: a request log of 20,000 lines is not worth keeping whole. */
function keepTail(text: string): string {
  return text.length > 65_536 ? text.slice(-65_536) : text;
}

export function isRunning(served: Served): boolean {
  return served.child.exitCode === null && served.child.signalCode === null;
}

/** kill -9; resolves once the process is gone, with the time of the kill. */
export async function killHard(served: Served): Promise<number> {
  const at = Date.now();
  if (isRunning(served)) {
    const exited = once(served.child, "exit");
    served.child.kill("SIGKILL");
    await exited;
  }
  return at;
}

/** SIGTERM and wait: the exit code (0 for a clean shutdown). */
export async function stopGracefully(served: Served): Promise<number | null> {
  if (!isRunning(served)) return served.child.exitCode;
  const exited = once(served.child, "exit") as Promise<[number | null]>;
  served.child.kill("SIGTERM");
  const [code] = await exited;
  return code;
}

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status), or undefined once it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const MiB = 1024 * 1024;
