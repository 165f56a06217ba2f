import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/**
 * Times a small request (GET /v1/flags) every `intervalMs` from a child process of its own, so
 * that what is measured is the server's answer, not the test process's event loop — which, in
 * the large-email suites, is busy building and uploading 39 MiB bodies. Each probe prints one
 * line: its milliseconds and whether it answered 200.
 */
const PROBE_SCRIPT = `
const [url, key, interval] = process.argv.slice(1);
let running = true;
process.stdin.on("end", () => (running = false)).resume();
while (running) {
  const begun = performance.now();
  let ok = false;
  try {
    const response = await fetch(url + "/v1/flags", { headers: { authorization: "Bearer " + key } });
    await response.arrayBuffer();
    ok = response.status === 200;
  } catch {}
  process.stdout.write(JSON.stringify([performance.now() - begun, ok]) + "\\n");
  await new Promise((resolve) => setTimeout(resolve, Number(interval)));
}
`;

export interface ProbeResults {
  /** Milliseconds of every probe, answered or not (a failed one still waited). */
  ms: number[];
  /** Probes that did not answer 200 (a refused or reset connection, another status). */
  errors: number;
}

/** Starts probing `url`; `stop()` ends the child after its probe in flight and gives every timing. */
export function startProber(url: string, apiKey: string, intervalMs: number): { stop(): Promise<ProbeResults> } {
  const child = spawn(process.execPath, ["--input-type=module", "-e", PROBE_SCRIPT, url, apiKey, String(intervalMs)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const results: ProbeResults = { ms: [], errors: 0 };
  createInterface({ input: child.stdout }).on("line", (line) => {
    const [ms, ok] = JSON.parse(line) as [number, boolean];
    results.ms.push(ms);
    if (!ok) results.errors += 1;
  });
  return {
    async stop() {
      const closed = once(child, "close"); // after its last line is read
      child.stdin.end();
      await closed;
      return results;
    },
  };
}
