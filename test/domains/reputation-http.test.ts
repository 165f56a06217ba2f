import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainSettingsFrom } from "../../cli/domain-settings.js";
import { changeDomain } from "../../src/domains/index.js";
import { createFlagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { startApp, type TestApp } from "../support/servers.js";

/**
 * `POST /v1/domains/{id}/resume` over real HTTP (zod-validated, resend error body) and the guard's
 * settings as `flagpost serve` reads them from its environment.
 */
describe("reputation guard over HTTP", () => {
  let app: TestApp;

  beforeAll(async () => {
    const domains = domainSettingsFrom({
      FLAGPOST_REPUTATION_WINDOW: "500",
      FLAGPOST_REPUTATION_BOUNCE_RATE: "0.02",
      FLAGPOST_REPUTATION_COMPLAINT_RATE: " 0.003 ",
    });
    app = await startApp({ domains: { ...domains, autoStart: false } });
  });
  afterAll(() => app.close());

  it("resumes a paused domain, answers it as GET does, and refuses fields and unknown ids", async () => {
    const created = (await (await app.call("POST", "/v1/domains", { name: "held.example" })).json()) as { id: string };
    const at = Date.now();
    await changeDomain(app.fp.storage, created.id, (d) => ({ ...d, pausedAt: at, updatedAt: at }));
    const before = (await (await app.call("GET", `/v1/domains/${created.id}`)).json()) as {
      reputation: Record<string, number>;
    };
    expect(before).toMatchObject({ paused: true, reputation: { window: 500, sends: 0, bounce_rate: 0 } });
    expect(before.reputation).toMatchObject({ bounce_threshold: 0.02, complaint_threshold: 0.003 });

    const refused = await app.call("POST", `/v1/domains/${created.id}/resume`, { force: true });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ name: "validation_error" });
    expect((await app.fp.domains.get(created.id)).paused).toBe(true);

    const resumed = await app.call("POST", `/v1/domains/${created.id}/resume`);
    expect(resumed.status).toBe(200);
    const body = await resumed.json();
    expect(body).toMatchObject({ object: "domain", id: created.id, paused: false, paused_at: null });
    expect(await (await app.call("GET", `/v1/domains/${created.id}`)).json()).toEqual(body);

    const unknown = await app.call("POST", "/v1/domains/0197aaaa-0000-7000-8000-000000000000/resume", {});
    expect(unknown.status).toBe(404);
  });

  it("refuses settings that are not a window or a rate, naming them", () => {
    const start = (env: NodeJS.ProcessEnv) => () =>
      createFlagpost({ storage: memoryStorage(), logger: silentLogger, domains: domainSettingsFrom(env) });
    expect(start({ FLAGPOST_REPUTATION_WINDOW: "lots" })).toThrow(/domains\.reputation\.window/);
    expect(start({ FLAGPOST_REPUTATION_BOUNCE_RATE: "5%" })).toThrow(/domains\.reputation\.bounceRate/);
    expect(start({ FLAGPOST_REPUTATION_COMPLAINT_RATE: "2" })).toThrow(/domains\.reputation\.complaintRate/);
    expect(domainSettingsFrom({}).reputation).toBeUndefined();
  });
});
