import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, waitForOutput } from "../support/cli.js";

let dir: string;
let db: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-cli-"));
  db = join(dir, "flagpost.db");
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

function listeningUrl(output: string): string {
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
  return (JSON.parse(line!) as { url: string }).url;
}

describe("flagpost CLI", () => {
  it("keys create prints the key as its last line, and the key works", async () => {
    const created = await runCli(["keys", "create", "--scopes", "flags:read flags:evaluate", "--name", "web"], {
      FLAGPOST_DB: db,
    });
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^fp_[A-Za-z0-9_-]{43}$/);
    expect(created.stdout).toContain("scopes: flags:read flags:evaluate");

    const listed = await runCli(["keys", "list"], { FLAGPOST_DB: db });
    expect(listed.stdout).toContain("flags:read flags:evaluate  web");
    expect(listed.stdout).not.toContain(lines.at(-1)); // only the hash is stored; nothing prints the key
  });

  it("refuses unknown scopes, commands and options with exit code 2 and one line pointing to --help", async () => {
    const badScope = await runCli(["keys", "create", "--scopes", "flags:admin"], { FLAGPOST_DB: db });
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toBe('flagpost: Unknown scope "flags:admin"; see flagpost keys create --help\n');
    const badCommand = await runCli(["launch"], { FLAGPOST_DB: db });
    expect(badCommand.code).toBe(2);
    expect(badCommand.stderr).toBe('flagpost: unknown command "launch"; see flagpost --help\n');
    const badOption = await runCli(["serve", "--prot", "80"], { FLAGPOST_DB: db });
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toBe("flagpost: unknown option --prot; see flagpost serve --help\n");
  });

  it("prints its version and one command's help", async () => {
    const version = await runCli(["--version"], {});
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(
      (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version,
    );
    const help = await runCli(["events", "purge", "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: flagpost events purge --before <date>\n/);
    expect(help.stdout).not.toContain("keys create");
  });

  it("migrate creates the schema and is idempotent", async () => {
    expect((await runCli(["migrate"], { FLAGPOST_DB: db })).code).toBe(0);
    const again = await runCli(["migrate"], { FLAGPOST_DB: db });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("up to date");
  });

  it("serve prints a first key once, serves flags with it, logs requests without the key, and stops on SIGTERM", async () => {
    // One line per request (the default, "sampled", would write one in 100 of these).
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: db,
      PORT: "0",
      FLAGPOST_API_KEY: "",
      FLAGPOST_LOG_REQUESTS: "all",
    });
    let logged = "";
    child.stdout!.on("data", (d: Buffer) => (logged += d.toString()));
    const output = await waitForOutput(child, /"msg":"listening"/);
    const key = /\n {2}(fp_[A-Za-z0-9_-]{43})\n/.exec(output)?.[1];
    expect(key).toBeDefined();
    const url = listeningUrl(output);

    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${url}/v1/flags`, {
      method: "POST",
      headers,
      body: JSON.stringify({ key: "cli-flag", enabled: true }),
    });
    expect(created.status).toBe(201);
    const evaluated = await fetch(`${url}/v1/flags/cli-flag/evaluate`, {
      method: "POST",
      headers,
      body: JSON.stringify({ userId: "u" }),
    });
    expect(await evaluated.json()).toEqual({ data: { enabled: true, reason: "no_rules" } });

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    const requestLines = logged.split("\n").filter((l) => l.includes('"msg":"request"'));
    expect(requestLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ method: "POST", path: "/v1/flags", status: 201, duration_ms: expect.any(Number) }),
      expect.objectContaining({ method: "POST", path: "/v1/flags/cli-flag/evaluate", status: 200 }),
    ]);
    expect(logged.split(key!).length - 1).toBe(1); // the one-time printout, nothing else
    const jsonLines = logged.split("\n").filter((l) => l.startsWith("{"));
    for (const line of jsonLines) {
      expect(line).not.toContain(key!);
      expect(line.toLowerCase()).not.toContain("authorization");
    }
    expect(logged).toContain('"msg":"stopped"');

    // A second start finds the stored key and prints none.
    const second = spawnCli(["serve"], { FLAGPOST_DB: db, PORT: "0", FLAGPOST_API_KEY: "" });
    const again = await waitForOutput(second, /"msg":"listening"/);
    expect(again).not.toMatch(/fp_[A-Za-z0-9_-]{43}/);
    expect(again).toMatch(/"msg":"request logging".*"mode":"sampled","sample":100/);
    second.kill("SIGINT");
    expect((await once(second, "exit")) as [number | null, string | null]).toEqual([0, null]);
  });

  it("serve makes sure FLAGPOST_API_KEY exists with full_access and prints no key", async () => {
    const fixedKey = "a-key-of-my-own-choosing-0123";
    const child = spawnCli(["serve"], { FLAGPOST_DB: db, PORT: "0", FLAGPOST_API_KEY: fixedKey });
    const output = await waitForOutput(child, /"msg":"listening"/);
    expect(output).not.toContain(fixedKey);
    expect(output).not.toMatch(/fp_[A-Za-z0-9_-]{43}/);
    const res = await fetch(`${listeningUrl(output)}/v1/flags`, { headers: { authorization: `Bearer ${fixedKey}` } });
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("serve refuses a FLAGPOST_API_KEY shorter than 16 characters", async () => {
    const run = await runCli(["serve"], { FLAGPOST_DB: db, PORT: "0", FLAGPOST_API_KEY: "short" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("at least 16 characters");
  });
});
