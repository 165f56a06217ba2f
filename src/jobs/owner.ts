import { randomBytes } from "node:crypto";
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Lease owners name one process incarnation: `<host>:<pid>:<random>`, where `<host>` is the host
 * name plus, on Linux, the process-id namespace (`web-1@4026531836`), so that a pid means one
 * thing across everyone whose owner carries the same `<host>`.
 *
 * This is what lets a restarted process free its dead predecessor's leases at once instead of
 * waiting for them to end: an owner with our `<host>` whose pid no longer runs, or whose pid is
 * ours with another random part (a restart that got the same pid, as in a container), is dead.
 * Owners from other hosts are never judged here: their leases end on their own (short leases,
 * renewed while their process lives).
 */

function pidNamespace(): string {
  try {
    // "pid:[4026531836]": processes in different containers may share a host name and pids.
    return `@${/\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? ""}`;
  } catch {
    return ""; // not Linux: the host name alone
  }
}

const HOST = `${hostname()}${pidNamespace()}`;

/** Every owner name in use by a worker of this process: alive whatever its pid says. */
const LIVE_OWNERS = new Set<string>();

/** A fresh lease owner name for a worker of this process. */
export function jobOwner(): string {
  return ownerOfThisProcess(`${HOST}:${process.pid}:${randomBytes(4).toString("hex")}`);
}

/** Marks an owner name (e.g. one given in options) as a live worker of this process. */
export function ownerOfThisProcess(owner: string): string {
  LIVE_OWNERS.add(owner);
  return owner;
}

function parse(owner: string): { host: string; pid: number } | undefined {
  const match = /^(.*):(\d+):[0-9a-f]+$/.exec(owner);
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined;
}

/** Whether a process with this pid runs here (EPERM: it runs, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Among `owners` (as a queue lists them), the ones known to be dead: same host and pid namespace
 * as this process, and a pid that no longer runs, or our own pid under a name no worker of this
 * process uses (a previous incarnation that had the same pid).
 */
export function deadLocalOwners(owners: readonly string[]): string[] {
  return owners.filter((owner) => {
    if (LIVE_OWNERS.has(owner)) return false;
    const other = parse(owner);
    if (!other || other.host !== HOST) return false;
    return other.pid === process.pid || !running(other.pid);
  });
}
