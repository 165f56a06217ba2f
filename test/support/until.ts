import { setTimeout as delay } from "node:timers/promises";

/** Polls `check` every 50 ms until it holds; the time that took, or an error naming `what` past `budgetMs`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, budgetMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > budgetMs) throw new Error(`${what}: not within ${budgetMs} ms`);
    await delay(50);
  }
  return Date.now() - started;
}
