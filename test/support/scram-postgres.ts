import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * A throwaway PostgreSQL cluster that asks every client for a password (scram-sha-256), in a temp
 * directory on a free port, for tests of what flagpost says when a URL gives none. Needs the
 * server binaries (/usr/lib/postgresql/<version>/bin) and root, since the server runs as the
 * `postgres` OS user; `available()` says whether this machine has both.
 */

const run = promisify(execFile);

function binaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version === undefined ? undefined : join(root, version, "bin");
}

export function scramPostgresAvailable(): boolean {
  return binaries() !== undefined && process.getuid?.() === 0;
}

export interface ScramPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly password: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

export async function startScramPostgres(): Promise<ScramPostgres> {
  const bin = binaries();
  if (bin === undefined) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql");
  const dir = await mkdtemp(join(tmpdir(), "flagpost-scram-"));
  const { stdout } = await run("id", ["-u", "postgres"]);
  const uid = Number(stdout.trim());
  await chown(dir, uid, -1);
  await chmod(dir, 0o700);
  const password = "scram-test-password";
  const pwfile = join(dir, "pw");
  await writeFile(pwfile, `${password}\n`);
  await chown(pwfile, uid, -1);
  const asPostgres = (tool: string, args: string[]) =>
    run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args], { timeout: 120_000 });
  const data = join(dir, "data");
  await asPostgres("initdb", ["-D", data, "--auth=scram-sha-256", `--pwfile=${pwfile}`, "-U", "postgres", "-N"]);
  const port = await freePort();
  await asPostgres("pg_ctl", [
    "-D",
    data,
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ]);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    password,
    async stop() {
      await asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
