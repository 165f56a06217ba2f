import { setTimeout as delay } from "node:timers/promises";

/**
 * Polls `condition` until it holds; fails after `timeoutMs`. For bounds the contract states (a
 * change seen within 2 s), never as a performance assertion.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs, stepMs = 10 }: { timeoutMs: number; stepMs?: number },
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await delay(stepMs);
  }
}
