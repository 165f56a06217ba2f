import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/memory/index.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";

/** A real memory storage whose key lookups are counted (the read an unknown key used to cost). */
function countingStorage(): { storage: Storage; reads: () => number } {
  const storage = memoryStorage();
  let reads = 0;
  const findByHash = storage.apiKeys.findByHash.bind(storage.apiKeys);
  storage.apiKeys.findByHash = (hash) => {
    reads += 1;
    return findByHash(hash);
  };
  return { storage, reads: () => reads };
}

const randomKey = () => `fp_${randomBytes(24).toString("base64url")}`;

/** Issue 11, defect 9: unknown keys are limited by client address before any storage read. */
describe("requests with unknown keys", () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function get(key: string): Promise<number> {
    const response = await fetch(`${app!.url}/v1/flags`, { headers: { authorization: `Bearer ${key}` } });
    await response.arrayBuffer();
    return response.status;
  }

  it("cost at most the address's bucket in storage reads, while a known key keeps working", async () => {
    const { storage, reads } = countingStorage();
    app = await startApp({ storage, http: { rateLimit: { anonymous: { burst: 30, perSecond: 5 } } } });
    expect(await get(app.key)).toBe(200); // the valid key is now known to this process
    const before = reads();
    const started = performance.now();
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) statuses.push(await get(randomKey()));
    const seconds = (performance.now() - started) / 1000;
    const flooded = reads() - before;
    // The burst, less the token the known key's first request spent before it was known.
    expect(statuses.filter((s) => s === 403).length).toBeGreaterThanOrEqual(29);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    // One read per admitted request at most: the burst plus what refilled meanwhile.
    expect(flooded).toBeLessThanOrEqual(30 + Math.ceil(seconds * 5) + 1);
    expect(await get(app.key)).toBe(200);
  }, 60_000);

  it("remember an unknown key briefly: repeating it reads storage once", async () => {
    const { storage, reads } = countingStorage();
    app = await startApp({ storage, http: { rateLimit: { anonymous: { burst: 1_000, perSecond: 1_000 } } } });
    const unknown = randomKey();
    const before = reads();
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect(await get(unknown)).toBe(403);
    if (performance.now() - started < 900) expect(reads() - before).toBe(1);
    // A key created in this process works at once, even right after it was looked up as unknown.
    const made = await app.fp.keys.create({ key: unknown, scopes: ["flags:read"] });
    expect(made.key).toBe(unknown);
    expect(await get(unknown)).toBe(200);
  });
});
