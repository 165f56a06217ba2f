import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitUntil } from "./support/wait.js";
import { createRemoteFlagClient } from "../../src/flags/remote/index.js";
import type { Logger } from "../../src/ports/logger.js";

/** Issue 16 §5: the remote client's start never hangs or ends the process silently. */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-remote-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function recording(): Logger & { lines: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const log =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, msg, fields });
  return { lines, info: log("info"), warn: log("warn"), error: log("error") };
}

describe("createRemoteFlagClient at start-up", () => {
  it(
    "rejects ready() after readyTimeoutMs with the reason, in a process with nothing else to keep it alive (no exit 13)",
    { timeout: 90_000 },
    async () => {
      const script = join(ROOT, "test", ".remote-start.mts");
      await writeFile(
        script,
        [
          'import { createRemoteFlagClient } from "../src/client.js";',
          'const flags = createRemoteFlagClient({ url: "http://127.0.0.1:1023", apiKey: "fp_x", readyTimeoutMs: 3000 });',
          "try { await flags.ready(); console.log('ready?'); } catch (error) { console.log('rejected: ' + error.message); }",
          "await flags.close();",
        ].join("\n"),
      );
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", TSX, script], {
          cwd: ROOT,
          timeout: 60_000,
        });
        expect(stdout).toMatch(
          /^rejected: No flag snapshot from http:\/\/127\.0\.0\.1:1023\/v1\/flags\/_snapshot within 3000 ms \(last error: fetch failed: .*ECONNREFUSED/,
        );
        // The default logger is the core's: the failure is on stderr as a JSON line.
        // It never had a snapshot, so it does not claim to serve one.
        expect(stderr).toContain(
          '"msg":"cannot load flags from the server; no snapshot yet, so every flag answers its default"',
        );
        expect(stderr).not.toContain("serving the last snapshot");
      } finally {
        await rm(script, { force: true });
      }
    },
  );

  it("logs a missing and a corrupt bootstrap file, naming it, and keeps trying the server", async () => {
    for (const [name, content] of [
      ["missing.json", undefined],
      ["corrupt.json", "{not json"],
    ] as const) {
      const path = join(dir, name);
      if (content !== undefined) await writeFile(path, content);
      const logger = recording();
      const flags = createRemoteFlagClient({
        url: "http://127.0.0.1:9",
        apiKey: "fp_x",
        bootstrap: path,
        readyTimeoutMs: 200,
        logger,
      });
      await expect(flags.ready()).rejects.toThrow("No flag snapshot");
      await waitUntil(() => logger.lines.some((l) => l.msg.startsWith("cannot read the flag bootstrap")), {
        timeoutMs: 10_000,
      });
      await flags.close();
      const warning = logger.lines.find((l) => l.msg === "cannot read the flag bootstrap; waiting for the server");
      expect(warning?.fields.bootstrap, name).toBe(path);
    }
  });
});
