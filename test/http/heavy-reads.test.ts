import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../src/memory/index.js";
import { startApp, type TestApp } from "../support/servers.js";

/**
 * At most 2 heavy reads (experiment results, event queries over more than a day) run at once per
 * API key; a third answers 429 with Retry-After at once instead of waiting for a connection, and
 * other keys and light requests are not affected. A gate holds the storage's heavy reads open so
 * the overlap is certain on any machine.
 */
describe("heavy reads per key", () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function start() {
    const storage = memoryStorage();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const hold =
      <A extends unknown[], R>(read: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        held += 1;
        await gate;
        return read(...args);
      };
    storage.experiments.experimentTotals = hold(storage.experiments.experimentTotals.bind(storage.experiments));
    storage.events.queryEvents = hold(storage.events.queryEvents.bind(storage.events));
    app = await startApp({ storage, http: { rateLimit: false } });
    return { app, release, held: () => held };
  }

  it("answers a key's third concurrent heavy read 429, and lets other keys and light reads through", async () => {
    const { app, release, held } = await start();
    const results = "/v1/experiments/checkout/results?metric=purchase";
    const first = app.call("GET", results);
    const second = app.call("GET", "/v1/events?from=2026-01-01T00:00:00Z");
    while (held() < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    const third = await app.call("GET", results);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("1");
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    const longEvents = await app.call("GET", "/v1/events");
    expect(longEvents.status).toBe(429);

    // Another key has its own share, and requests that are not heavy do not count.
    const { key: other } = await app.fp.keys.create({ scopes: ["events:read"] });
    const otherRead = fetch(`${app.url}${results}`, { headers: { authorization: `Bearer ${other}` } });
    while (held() < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await app.call("GET", "/v1/flags")).status).toBe(200);

    release();
    expect((await first).status).toBe(404); // no experiment of that name: the read itself ran
    expect((await second).status).toBe(200);
    expect((await otherRead).status).toBe(404);
    // The share is free again.
    expect((await app.call("GET", "/v1/events?from=2026-01-01T00:00:00Z")).status).toBe(200);
  });

  it("counts an event query over a day or less as light", async () => {
    const { app, release, held } = await start();
    const heavy = [app.call("GET", "/v1/events"), app.call("GET", "/v1/events")];
    while (held() < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const light = app.call("GET", "/v1/events?from=2026-01-01T00:00:00Z&to=2026-01-01T12:00:00Z");
    while (held() < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    expect((await light).status).toBe(200);
    for (const response of await Promise.all(heavy)) expect(response.status).toBe(200);
  });
});
