import type { FlagClient } from "flagpost/client";

/**
 * How bench:propagation recognises change i wherever it looks: the flag "prop" then has one rule
 * listing user `u<i>`, so `isEnabled("prop", {userId: "u<i>"})` turns true when change i arrived.
 */

export const FLAG = "prop";

export function userOfChange(i: number): string {
  return `u${i}`;
}

/** Wall-clock milliseconds, comparable across the processes of one machine. */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Records, for a flag client, when each change became visible to its `isEnabled`. */
export function watchChanges(client: FlagClient) {
  let last = 0;
  const seen = new Map<number, number>();
  const waiters = new Map<number, (at: number) => void>();
  const check = () => {
    // Changes come one at a time; a look a few ahead covers a coalesced pair.
    const end = last + 5;
    for (let i = last + 1; i <= end; i++) {
      if (!client.isEnabled(FLAG, { userId: userOfChange(i) })) continue;
      const at = wallNow();
      for (let j = last + 1; j <= i; j++) {
        seen.set(j, at);
        waiters.get(j)?.(at);
        waiters.delete(j);
      }
      last = i;
    }
  };
  client.subscribe((event) => {
    if (event.type === "changed" || event.type === "ready") check();
  });
  return {
    /** When change `i` was first seen; rejects after `timeoutMs`. */
    seenAt(i: number, timeoutMs: number): Promise<number> {
      const at = seen.get(i);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(i);
          reject(new Error(`change ${i} not seen within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.set(i, (value) => {
          clearTimeout(timer);
          resolve(value);
        });
      });
    },
    /** Forgets what was seen; the next change expected is `from + 1`. */
    reset(from: number): void {
      last = from;
      seen.clear();
    },
  };
}
