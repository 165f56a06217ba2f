import { expect } from "vitest";
import { API_KEY, type Served } from "./serve.js";

/**
 * Flag change propagation between `flagpost serve` processes on one database: each round PATCHes
 * one flag through one process, then asks each other process's evaluate route, back to back,
 * until it answers with the new value. A sample is the time from the PATCH's answer (the write
 * has committed) to that process's first answer with the new value.
 */

const FLAG = "propagation-probe";
const ROUND_BUDGET_MS = 10_000;

function headers() {
  return { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
}

async function enabledAt(server: Served): Promise<boolean> {
  const response = await fetch(`${server.url}/v1/flags/${FLAG}/evaluate`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ userId: "u1" }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { enabled: boolean } }).data.enabled;
}

/** Resolves with the time at which `server` first answers `value`. */
async function waitFor(server: Served, value: boolean): Promise<number> {
  const deadline = Date.now() + ROUND_BUDGET_MS;
  for (;;) {
    if ((await enabledAt(server)) === value) return performance.now();
    if (Date.now() > deadline) throw new Error(`${server.url} still answers ${!value} after ${ROUND_BUDGET_MS} ms`);
  }
}

/** `rounds` writes, each seen by every other process: the propagation times in milliseconds. */
export async function measurePropagation(servers: readonly Served[], rounds: number): Promise<number[]> {
  const create = await fetch(`${servers[0]!.url}/v1/flags`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ key: FLAG, enabled: false }),
  });
  expect(create.status).toBe(201);
  // A flag another process has never seen is read from storage: every process knows it from here.
  await Promise.all(servers.map((s) => waitFor(s, false)));
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const writer = servers[round % servers.length]!;
    const value = round % 2 === 0;
    const patch = await fetch(`${writer.url}/v1/flags/${FLAG}`, {
      method: "PATCH",
      headers: headers(),
      body: JSON.stringify({ enabled: value }),
    });
    expect(patch.status).toBe(200);
    await patch.arrayBuffer();
    const committed = performance.now();
    const seen = await Promise.all(servers.filter((s) => s !== writer).map((s) => waitFor(s, value)));
    for (const at of seen) samples.push(Math.round((at - committed) * 10) / 10);
  }
  return samples;
}
