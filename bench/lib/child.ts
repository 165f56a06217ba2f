import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

/**
 * Benchmark helpers that run in a process of their own (HTTP servers, the load generator, an
 * SMTP sink), pinned to one core with taskset where the machine has it, and driven over IPC with
 * a tiny request/reply protocol: `{id, method, args}` → `{id, result}` or `{id, error}`.
 */

const TSX_LOADER = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

let tasksetChecked: boolean | undefined;

/** Whether processes can be pinned: taskset runs and there are at least two cores. */
export function canPin(): boolean {
  tasksetChecked ??=
    cpus().length >= 2 && spawnSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" }).status === 0;
  return tasksetChecked;
}

export interface Child<R = unknown> {
  readonly pid: number;
  /** What the child's `ready` promise resolved with (a port, a key). */
  readonly ready: R;
  /** The core it is pinned to, or undefined when it is not pinned. */
  readonly core: number | undefined;
  /** Calls `method` in the child and resolves with what it returned. */
  call<T = unknown>(method: string, ...args: unknown[]): Promise<T>;
  /** Asks the child to finish (its `close` handler runs) and waits for it to exit. */
  close(): Promise<void>;
}

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

/**
 * Starts `file` (a TypeScript module that calls {@link serveCalls}) under tsx, pinned to `core`
 * when pinning is possible, and resolves once it is ready.
 */
export async function startChild<R = unknown>(
  file: URL,
  args: string[] = [],
  options: { core?: number; execArgv?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<Child<R>> {
  const node = [...(options.execArgv ?? []), "--import", TSX_LOADER, fileURLToPath(file), ...args];
  const core = options.core !== undefined && canPin() ? options.core : undefined;
  const [command, argv] =
    core === undefined ? [process.execPath, node] : ["taskset", ["-c", String(core), process.execPath, ...node]];
  const child: ChildProcess = spawn(command, argv, {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, ...options.env },
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      for (const p of pending.values()) p.reject(new Error(`${file.pathname} exited (${signal ?? code})`));
      pending.clear();
      resolve();
    });
  });
  child.on("message", (message: Reply) => {
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    if (message.error !== undefined) p.reject(new Error(message.error));
    else p.resolve(message.result);
  });
  const handle: Omit<Child<R>, "ready"> = {
    pid: child.pid!,
    core,
    call<T>(method: string, ...callArgs: unknown[]) {
      if (exited) return Promise.reject(new Error(`${file.pathname} has exited`));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, method, args: callArgs });
      });
    },
    async close() {
      if (exited) return;
      await handle.call("close").catch(() => undefined);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
  try {
    return { ...handle, ready: await handle.call<R>("ready") };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

/**
 * The child's side: answers calls with `handlers`. `ready` resolves once the child is set up (its
 * value is what `ready` calls get); `close` runs the handler of that name (if any), then exits.
 */
export function serveCalls(
  handlers: Record<string, (...args: any[]) => unknown>,
  ready: Promise<unknown> = Promise.resolve(),
): void {
  process.on("message", async (message: { id: number; method: string; args: unknown[] }) => {
    const reply = (body: Omit<Reply, "id">) => void process.send!({ id: message.id, ...body });
    try {
      if (message.method === "ready") {
        reply({ result: await ready });
        return;
      }
      const handler = handlers[message.method];
      if (!handler && message.method !== "close") throw new Error(`no handler for ${message.method}`);
      const result = await handler?.(...message.args);
      if (message.method === "close") {
        // Exit once the reply is out, even if a library left a timer or socket behind.
        process.send!({ id: message.id, result: null }, () => process.exit(0));
        return;
      }
      reply({ result: result ?? null });
    } catch (error) {
      reply({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}
