import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { setTimeout as delay } from "node:timers/promises";

/**
 * A Postfix instance of the test's own, from the files in test/mta/postfix: configuration, queue,
 * data directory and mailboxes all in one temp directory, listeners on 127.0.0.1 ports chosen by
 * the caller, started with `postfix -c <dir> start` (root is needed: Postfix's master runs as
 * root and drops to the postfix user). A system Postfix, if any, shares nothing with it: another
 * configuration directory, queue (which holds the master's pid and lock) and ports.
 */

const run = promisify(execFile);
const TEMPLATES = fileURLToPath(new URL("../postfix/", import.meta.url));
const FILES = ["main.cf", "master.cf", "transport", "virtual_mailboxes", "hop2_access"] as const;
export const POSTFIX = "/usr/sbin/postfix";
/** Mailbox files belong to this account (virtual_uid_maps): no system user gets mail. */
const MAILBOX_OWNER = "nobody";
const PREFIX = "flagpost-mta-";

export interface PostfixPorts {
  /** Where flagpost sends (the instance's SMTP listener). */
  smtp: number;
  /** The "remote" listener for accepted.test, which refuses every recipient at RCPT. */
  hop2: number;
  /** flagpost's inbound listener: the bounce domain's next hop. */
  inbound: number;
  /** A port nothing listens on: deferred.test's next hop. */
  closed: number;
}

export interface PostfixInstance {
  readonly dir: string;
  readonly ports: PostfixPorts;
  /** The mailbox file of a mail.test user ("" while none was delivered). */
  mailbox(user: string): Promise<string>;
  /** The instance's log so far (maillog_file), for failure messages. */
  log(): Promise<string>;
  /** Stops the instance (idempotent) and removes its directory. */
  stop(): Promise<void>;
}

/** What keeps a test from running its own instance, or undefined when nothing does. */
export function postfixUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the real-MTA suite must run as root: Postfix's master starts as root";
  if (!existsSync(POSTFIX)) return `${POSTFIX} is missing: run .ci/ensure-postfix (npm run test:mta does)`;
  return undefined;
}

async function accountIds(name: string): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run("id", ["-u", name])).stdout.trim());
  const gid = Number((await run("id", ["-g", name])).stdout.trim());
  return { uid, gid };
}

function render(text: string, values: Record<string, string>): string {
  return text.replace(/@([A-Z][A-Z0-9_]*)@/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`test/mta/postfix uses ${whole}, which the harness does not set`);
    return value;
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** `count` distinct ports free on 127.0.0.1 (all held open together while chosen, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/**
 * Instances whose test process died without stopping them (SIGKILL, a lost machine session): each
 * directory names its owner's pid; an instance whose owner is gone is aborted and removed. Young
 * directories are left alone, so a run starting beside this one is never touched.
 */
async function sweepOrphans(): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(tmpdir(), name);
    const owner = Number((await readFile(join(dir, "owner.pid"), "utf8").catch(() => "")).trim());
    const age = Date.now() - ((await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now());
    if ((owner > 0 && isAlive(owner)) || age < 60_000) continue;
    await run(POSTFIX, ["-c", join(dir, "config"), "abort"]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Instances still running when the test process exits (a crash, a timeout) are aborted then. */
const running = new Set<string>();
process.once("exit", () => {
  for (const dir of running) {
    try {
      execFileSync(POSTFIX, ["-c", join(dir, "config"), "abort"], { stdio: "ignore" });
    } catch {
      // Already gone: nothing to stop.
    }
  }
});

/**
 * Writes the configuration with `ports` and `mailboxes` (mail.test user → initial mailbox
 * content, e.g. a nearly full one), starts Postfix and waits until its SMTP listener answers.
 */
export async function startPostfix(
  ports: PostfixPorts,
  mailboxes: Record<string, string> = {},
): Promise<PostfixInstance> {
  await sweepOrphans();
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  await writeFile(join(dir, "owner.pid"), String(process.pid));
  // The postfix user and the mailbox owner both walk into it.
  await chmod(dir, 0o755);
  const config = join(dir, "config");
  const base = join(dir, "mailboxes", "mail.test");
  await mkdir(config);
  // postfix start creates the queue's subdirectories (Debian's postfix-files), not the queue itself.
  await mkdir(join(dir, "queue"), { mode: 0o755 });
  await mkdir(base, { recursive: true });
  const owner = await accountIds(MAILBOX_OWNER);
  const values = {
    DIR: dir,
    UID: String(owner.uid),
    GID: String(owner.gid),
    SMTP_PORT: String(ports.smtp),
    HOP2_PORT: String(ports.hop2),
    INBOUND_PORT: String(ports.inbound),
    CLOSED_PORT: String(ports.closed),
  };
  for (const file of FILES)
    await writeFile(join(config, file), render(await readFile(join(TEMPLATES, file), "utf8"), values), {
      mode: 0o644,
    });
  for (const [user, content] of Object.entries(mailboxes)) {
    await writeFile(join(base, user), content, { mode: 0o600 });
    await chown(join(base, user), owner.uid, owner.gid);
  }
  await chown(base, owner.uid, owner.gid);

  const instance = postfixInstance(dir, ports);
  running.add(dir);
  try {
    await run(POSTFIX, ["-c", config, "start"]);
    const deadline = Date.now() + 30_000;
    while (!(await accepts(ports.smtp))) {
      if (Date.now() > deadline) throw new Error(`Postfix did not listen on ${ports.smtp} within 30 s`);
      await delay(200);
    }
  } catch (error) {
    const log = await instance.log();
    await instance.stop();
    throw new Error(`Postfix did not start: ${(error as Error).message}\n${log}`, { cause: error });
  }
  return instance;
}

function postfixInstance(dir: string, ports: PostfixPorts): PostfixInstance {
  const config = join(dir, "config");
  return {
    dir,
    ports,
    async mailbox(user) {
      return readFile(join(dir, "mailboxes", "mail.test", user), "utf8").catch(() => "");
    },
    async log() {
      return readFile(join(dir, "maillog"), "utf8").catch(() => "(no maillog)");
    },
    async stop() {
      if (!running.delete(dir)) return;
      const master = await masterPid(dir);
      await run(POSTFIX, ["-c", config, "stop"]).catch(() => undefined);
      // `stop` returns before the master has exited (and Postfix leaves its pid file behind):
      // wait for the process itself, then abort whatever is left.
      for (let i = 0; i < 150 && master !== undefined && isAlive(master); i += 1) await delay(100);
      if (master !== undefined && isAlive(master)) {
        await run(POSTFIX, ["-c", config, "abort"]).catch(() => undefined);
        process.kill(master, "SIGKILL");
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The pid of an instance's master process, from its queue's pid file. */
export async function masterPid(dir: string): Promise<number | undefined> {
  const text = await readFile(join(dir, "queue", "pid", "master.pid"), "utf8").catch(() => "");
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether a process runs (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a system Postfix (Debian's /etc/postfix and /var/spool/postfix) looks like from outside:
 * its master's pid and whether it runs, and when its configuration and queue directories last
 * changed. The suite's instance must leave all of it as it was.
 */
export async function systemPostfixState(): Promise<string> {
  const pid = Number((await readFile("/var/spool/postfix/pid/master.pid", "utf8").catch(() => "")).trim());
  const changed = async (path: string) => (await stat(path).catch(() => undefined))?.mtimeMs ?? "absent";
  return JSON.stringify({
    master: pid > 0 ? { pid, running: isAlive(pid) } : "none",
    config: await changed("/etc/postfix"),
    mainCf: await changed("/etc/postfix/main.cf"),
    queue: await changed("/var/spool/postfix"),
  });
}
