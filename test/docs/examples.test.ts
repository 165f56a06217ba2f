import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url));

interface Started {
  child: ChildProcess;
  info: { url: string; api?: string; key: string };
}

const running: ChildProcess[] = [];
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
}
afterEach(async () => {
  for (const child of running.splice(0)) await stop(child);
});

/** Runs an example exactly as the README says (tsx, from the repo root) and reads its first line. */
async function start(file: string, env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(process.execPath, ["--import", TSX, file], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before printing its address:\n${err}`)));
  });
  return { child, info: JSON.parse(line) as Started["info"] };
}

async function api(base: string, key: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("examples run as written, twice each", () => {
  it("standalone.ts serves /v1 on SQLite", async () => {
    const dir = await mkdtemp(join(tmpdir(), "flagpost-example-"));
    try {
      // Twice on one file, as a user restarting it would: the second run finds the first one's flag.
      for (const created of [201, 409]) {
        const { info, child } = await start("examples/standalone.ts", { DB_FILE: join(dir, "standalone.db") });
        expect((await api(info.url, info.key, "POST", "/v1/flags", { key: "x", enabled: true })).status).toBe(created);
        const evaluated = await api(info.url, info.key, "POST", "/v1/flags/x/evaluate", { userId: "u" });
        expect(await evaluated.json()).toEqual({ data: { enabled: true, reason: "no_rules" } });
        await stop(child);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("express-app.ts mounts /v1 and its own route reads the flag", async () => {
    for (let run = 1; run <= 2; run++) {
      const { info, child } = await start("examples/express-app.ts");
      expect(await (await fetch(`${info.url}/checkout?user=alice`)).json()).toEqual({ checkout: "new" });
      expect(await (await fetch(`${info.url}/checkout?user=bob`)).json()).toEqual({ checkout: "old" });
      await api(info.url, info.key, "PATCH", "/v1/flags/new-checkout", { enabled: false });
      expect(await (await fetch(`${info.url}/checkout?user=alice`)).json()).toEqual({ checkout: "old" });
      await stop(child);
    }
  });

  it("fastify-app.ts serves /v1 under /api", async () => {
    for (let run = 1; run <= 2; run++) {
      const { info, child } = await start("examples/fastify-app.ts");
      const list = await api(info.api!, info.key, "GET", "/v1/flags");
      expect(((await list.json()) as { data: { key: string }[] }).data.map((f) => f.key)).toEqual(["new-checkout"]);
      expect((await fetch(`${info.url}/checkout?user=u1`)).status).toBe(200);
      await stop(child);
    }
  });

  it("hono-app.ts mounts /v1 as middleware and falls through to its routes", async () => {
    for (let run = 1; run <= 2; run++) {
      const { info, child } = await start("examples/hono-app.ts");
      expect(await (await fetch(`${info.url}/checkout?plan=pro`)).json()).toEqual({ checkout: "new" });
      expect(await (await fetch(`${info.url}/checkout?plan=free`)).json()).toEqual({ checkout: "old" });
      expect((await api(info.url, info.key, "GET", "/v1/flags/new-checkout")).status).toBe(200);
      await stop(child);
    }
  });
});
