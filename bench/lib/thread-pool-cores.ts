import { execFileSync } from "node:child_process";
import { pbkdf2 } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

/**
 * Where libuv's thread pool and the worker threads run in a benchmark process, apart from its
 * event loop. A process started pinned to one core (lib/child.ts) has its pool and every thread it
 * starts there too, so work handed to them (DKIM signing, in flagpost's signing threads) competes
 * with the event loop for that core. A server has more cores than one; these helpers let those
 * threads alone use every core while the event loop stays on its own. Linux only (/proc and
 * taskset); elsewhere they stay where they are.
 */

/** The cores the event-loop thread may use, as /proc lists them ("0", "0-1"). */
function loopCores(): string {
  const status = readFileSync(`/proc/self/task/${process.pid}/status`, "utf8");
  return /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1] ?? `0-${cpus().length - 1}`;
}

/** CPU ticks (user + system) of each thread of this process but the event loop's. */
function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    if (tid === String(process.pid)) continue;
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks.set(tid, Number(fields[11]) + Number(fields[12]));
  }
  return ticks;
}

/** The threads that ran before findThreadPool (V8's, the loader's, the pool's own). */
const atStart = new Set<string>();

/**
 * The thread ids of libuv's thread pool: the threads that do the work when the pool is given
 * enough of it (key derivations, a few tens of milliseconds each) to keep every one busy. Found by
 * what they do rather than by name (Node 20 names every thread "node") or by when they appeared
 * (a loader may have started the pool before this module runs).
 */
export async function findThreadPool(): Promise<string[]> {
  try {
    const before = threadTicks();
    for (const tid of before.keys()) atStart.add(tid);
    const job = () => new Promise((resolve) => pbkdf2("bench", "salt", 20_000, 32, "sha256", resolve));
    await Promise.all(Array.from({ length: 32 }, job));
    const worked = [...threadTicks()].map(([tid, ticks]) => [tid, ticks - (before.get(tid) ?? 0)] as const);
    // The pool's threads share the work; a V8 or loader thread that ran meanwhile did a little.
    const most = Math.max(0, ...worked.map(([, ticks]) => ticks));
    return worked.filter(([, ticks]) => most > 0 && ticks >= most / 3).map(([tid]) => tid);
  } catch {
    return [];
  }
}

/**
 * Threads started after findThreadPool: worker threads, such as flagpost's DKIM signing threads
 * (started with the first signed message, so placed from the run after it on).
 */
function laterThreads(): string[] {
  try {
    return [...threadTicks().keys()].filter((tid) => !atStart.has(tid));
  } catch {
    return [];
  }
}

/**
 * Lets the pool threads `pool`, and the worker threads started since, use every core (`spread`)
 * or only the event loop's cores. Throws when asked to spread and the threads cannot be moved, so
 * a run never claims a layout it did not have.
 */
export function placeThreadPool(pool: readonly string[], spread: boolean): void {
  const cores = spread ? `0-${cpus().length - 1}` : loopCores();
  try {
    if (pool.length === 0) throw new Error("no thread pool threads found");
    for (const tid of [...pool, ...laterThreads()])
      execFileSync("taskset", ["-p", "-c", cores, tid], { stdio: "ignore" });
  } catch (error) {
    if (spread) throw new Error(`could not let the thread pool use cores ${cores}`, { cause: error });
  }
}
