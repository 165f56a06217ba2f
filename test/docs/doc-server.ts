import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnCli, waitForOutput } from "../support/cli.js";

/**
 * What a docs walk-through's reader has set up before its first block: `flagpost` on the PATH
 * (the CLI from source, as an installed package's bin) and one `flagpost serve` with the key its
 * first start prints. README's test and the docs walk-throughs' test share it.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

export interface DocServer {
  url: string;
  host: string;
  key: string;
  child: ChildProcess;
  db: string;
}

/** `<out>/bin/flagpost`, and a .curlrc in `out` (use it as CURL_HOME) that ends each answer with a newline. */
export async function writeReaderShell(out: string): Promise<void> {
  await mkdir(join(out, "bin"), { recursive: true });
  const shim = join(out, "bin", "flagpost");
  await writeFile(
    shim,
    `#!/bin/sh\nexec "${process.execPath}" --import "${TSX}" "${join(ROOT, "cli", "main.ts")}" "$@"\n`,
  );
  await chmod(shim, 0o755);
  await writeFile(join(out, ".curlrc"), 'write-out = "\\n"\n'); // each answer on a line of its own
}

/** `flagpost serve` (what `npm start` runs) on SQLite in `<out>/server`, on a port of its own. */
export async function startDocServer(out: string, env: NodeJS.ProcessEnv = {}): Promise<DocServer> {
  const dir = join(out, "server");
  await mkdir(dir, { recursive: true });
  const db = join(dir, "flagpost.db");
  const child = spawnCli(["serve"], { FLAGPOST_DB: db, FLAGPOST_OUTBOX_DIR: join(dir, "outbox"), PORT: "0", ...env });
  const output = await waitForOutput(child, /"msg":"listening"/);
  const url = /"url":"(http:[^"]+)"/.exec(output)![1]!;
  const key = /^ {2}(fp_\S+)$/m.exec(output)?.[1]; // the key a first start prints once
  if (!key) throw new Error(`serve printed no first key:\n${output}`);
  return { url, host: new URL(url).host, key, child, db };
}

export async function stopDocServer(server: DocServer | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
}
