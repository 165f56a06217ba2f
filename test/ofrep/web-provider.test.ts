import type { OpenFeature, ProviderEvents } from "@openfeature/web-sdk";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost, memoryStorage, silentLogger, type Storage } from "../../src/internal.js";
import { type Browser, launchBrowser } from "../dashboard/browser.js";
import type { Running } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { startFlagpostOrigin, startPageOrigin } from "./support/origins.js";
import { bundleWebClient } from "./support/web-bundle.js";
import { createValuedFlag } from "./support/valued-flag.js";

// The official @openfeature/web-sdk + @openfeature/ofrep-web-provider, unchanged, in headless
// Chromium on a page from another origin, set up by the very block docs/clients-browser.md shows
// (issue 27, "Tests"). Everything the test asserts about requests is counted on the server side.

/** Short, so that a change and a few idle polls fit in a fast test. */
const POLL_MS = 250;
/** A change reaches the page within one poll interval plus this: one loopback round trip and a bulk evaluation, with room for a loaded machine. */
const CHANGE_BOUND_MS = 1000;
const BULK = "/ofrep/v1/evaluate/flags";

/** What the bundle (test/ofrep/support/web-bundle.ts) and the test put on the page's globalThis. */
interface PageGlobals {
  flagpostTest: {
    startFlags(
      setup: { baseUrl: string; clientKey: string; pollInterval?: number },
      user: { id: string; plan: string },
    ): Promise<void>;
    OpenFeature: typeof OpenFeature;
    ProviderEvents: typeof ProviderEvents;
  };
  changes: { at: number; flags: string[] }[];
}

let browser: Browser;
let allowed: Running;
let other: Running;

beforeAll(async () => {
  const script = await bundleWebClient();
  [browser, allowed, other] = await Promise.all([launchBrowser(), startPageOrigin(script), startPageOrigin(script)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), allowed?.close(), other?.close()]);
});

async function seedFlags(fp: Flagpost): Promise<void> {
  await fp.flags.create({
    key: "beta",
    enabled: true,
    rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }],
  });
  const valued = (key: string, a: unknown, b: unknown) => createValuedFlag(fp, key, a, b);
  await valued("cta-text", "Buy", "Purchase");
  await valued("max-upload-mb", 100, 250);
  await valued("theme", { color: "blue" }, { color: "green", dense: true });
  await fp.flags.create({
    key: "banner",
    enabled: false,
    variants: [
      { key: "sale", weight: 50, value: "Sale today" },
      { key: "none", weight: 50, value: "" },
    ],
  });
}

/** Opens a page of `origin` and runs the doc's startFlags there; answers its error, if any. */
async function openFlagsPage(origin: Running, baseUrl: string, clientKey: string) {
  const page = await browser.newPage();
  await page.goto(`${origin.url}/`);
  const failure = await page.evaluate(
    async (setup) => {
      const w = globalThis as unknown as PageGlobals;
      const { OpenFeature, ProviderEvents } = w.flagpostTest;
      w.changes = [];
      OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, (details) => {
        w.changes.push({
          at: Date.now(),
          flags: (details as { flagsChanged?: string[] } | undefined)?.flagsChanged ?? [],
        });
      });
      try {
        await w.flagpostTest.startFlags(setup, { id: "vip", plan: "pro" });
        return undefined;
      } catch (error) {
        return String(error);
      }
    },
    { baseUrl, clientKey, pollInterval: POLL_MS },
  );
  return { page, failure };
}

/** The page's answers, read through the OpenFeature client the page holds. */
function readFlags(page: Page) {
  return page.evaluate(() => {
    const client = (globalThis as unknown as PageGlobals).flagpostTest.OpenFeature.getClient();
    const beta = client.getBooleanDetails("beta", false);
    const cta = client.getStringDetails("cta-text", "fallback");
    const mb = client.getNumberDetails("max-upload-mb", 0);
    const theme = client.getObjectDetails("theme", {});
    return [beta, cta, mb, theme].map((d) => ({
      key: d.flagKey,
      value: d.value,
      variant: d.variant,
      reason: d.reason,
      errorCode: d.errorCode,
    }));
  });
}

describeEachStorage("@openfeature/ofrep-web-provider in Chromium", (storage: () => Storage) => {
  let fp: Flagpost;
  let flagpost: Awaited<ReturnType<typeof startFlagpostOrigin>>;
  let clientKey: string;
  beforeEach(async () => {
    fp = createFlagpost({ storage: storage(), logger: silentLogger });
    await fp.ready();
    await seedFlags(fp);
    clientKey = (await fp.keys.create({ name: "web", scopes: ["flags:client"] })).key;
    // FLAGPOST_CORS_ORIGINS as an operator writes it: the page's origin, with a trailing slash.
    flagpost = await startFlagpostOrigin(fp, `${allowed.url}/`);
  });
  afterEach(async () => {
    await flagpost.close();
    await fp.close();
  });

  const openPage = (origin: Running) => openFlagsPage(origin, flagpost.url, clientKey);

  it("loads every value for the context, after a preflight, then polls 304s and picks up a change", async () => {
    const { page, failure } = await openPage(allowed);
    expect(failure).toBeUndefined();
    expect(await readFlags(page)).toEqual([
      { key: "beta", value: true, variant: undefined, reason: "TARGETING_MATCH", errorCode: undefined },
      { key: "cta-text", value: "Purchase", variant: "b", reason: "TARGETING_MATCH", errorCode: undefined },
      { key: "max-upload-mb", value: 250, variant: "b", reason: "TARGETING_MATCH", errorCode: undefined },
      {
        key: "theme",
        value: { color: "green", dense: true },
        variant: "b",
        reason: "TARGETING_MATCH",
        errorCode: undefined,
      },
    ]);

    // Off, unknown, or read as another type: the code default, as docs/clients-browser.md says.
    const edges = await page.evaluate(() => {
      const client = (globalThis as unknown as PageGlobals).flagpostTest.OpenFeature.getClient();
      return [
        client.getStringDetails("banner", "none"),
        client.getStringDetails("nope", "none"),
        client.getNumberDetails("cta-text", 7),
      ].map((d) => ({ value: d.value, reason: d.reason, errorCode: d.errorCode }));
    });
    expect(edges).toEqual([
      { value: "none", reason: "DISABLED", errorCode: undefined },
      { value: "none", reason: "ERROR", errorCode: "FLAG_NOT_FOUND" },
      { value: 7, reason: "ERROR", errorCode: "TYPE_MISMATCH" },
    ]);

    // The browser asked first (Authorization and Content-Type are not simple headers) and was let in.
    const fromPage = () => flagpost.seen.filter((r) => r.origin === allowed.url && r.path === BULK);
    const preflight = fromPage().find((r) => r.method === "OPTIONS");
    expect(preflight).toMatchObject({ status: 204, allowOrigin: allowed.url });
    expect(fromPage().find((r) => r.method === "POST")).toMatchObject({ status: 200, allowOrigin: allowed.url });

    // Idle: every poll carries the ETag and is answered 304, and nothing changes on the page.
    const idleFrom = fromPage().length;
    await page.waitForTimeout(POLL_MS * 5);
    const idle = fromPage()
      .slice(idleFrom)
      .filter((r) => r.method === "POST");
    expect(idle.length).toBeGreaterThanOrEqual(3);
    for (const poll of idle) expect(poll).toMatchObject({ status: 304, allowOrigin: allowed.url });
    expect(idle.every((poll) => poll.ifNoneMatch !== undefined)).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).changes)).toEqual([]);

    // Same user, other attributes. The provider answers first from its localStorage copy (keyed by
    // targetingKey), then refetches in the background sending the ETag it holds: only a tag that
    // covers the context gets the page the new user's values instead of a 304 and stale ones.
    const beforeContext = fromPage().length;
    await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).flagpostTest.OpenFeature.setContext({ targetingKey: "vip", plan: "free" }),
    );
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).changes.length > 0);
    expect((await readFlags(page))[0]).toMatchObject({ value: false, reason: "DEFAULT" });
    const refetch = fromPage()
      .slice(beforeContext)
      .find((r) => r.method === "POST" && r.status === 200);
    expect(refetch?.ifNoneMatch).toBeDefined();
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).changes = [];
    });

    // A change on the server reaches the page within a poll interval plus the bound.
    const changedAt = Date.now();
    await fp.flags.update("beta", {
      rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "free" }],
    });
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).changes.length > 0, null, {
      timeout: POLL_MS + CHANGE_BOUND_MS + 5000,
    });
    const [change] = await page.evaluate(() => (globalThis as unknown as PageGlobals).changes);
    const took = change!.at - changedAt;
    console.log(`change reached the page in ${took} ms (poll ${POLL_MS} ms)`);
    expect(took).toBeLessThanOrEqual(POLL_MS + CHANGE_BOUND_MS);
    expect(change!.flags).toEqual(["beta"]);
    expect((await readFlags(page))[0]).toMatchObject({ value: true, reason: "TARGETING_MATCH" });
    expect(page.problems).toEqual([]);
    await page.close();
  });

  it("lets a page from an origin not in FLAGPOST_CORS_ORIGINS read nothing", async () => {
    const { page, failure } = await openPage(other);
    expect(failure).toBeDefined();
    const answers = await readFlags(page);
    expect(answers.map((a) => a.value)).toEqual([false, "fallback", 0, {}]);
    for (const answer of answers) expect(answer.errorCode).toBeDefined();
    // The preflight was answered without CORS headers, so the browser never sent the request.
    const fromPage = flagpost.seen.filter((r) => r.origin === other.url);
    expect(fromPage.find((r) => r.method === "OPTIONS")).toMatchObject({ status: 204, allowOrigin: undefined });
    expect(fromPage.filter((r) => r.method === "POST")).toEqual([]);
    await page.close();
  });

  it("lets the page read the refusal of a wrong key, so the provider stops for good", async () => {
    const { page, failure } = await openFlagsPage(allowed, flagpost.url, "not-a-flagpost-key");
    // An unknown key is 401 on /ofrep/ (docs/ofrep.md; the spec's "missing, invalid, or expired"). The page reads that status only because
    // the refusal carries the CORS headers; hidden, it is a network error, which the provider
    // treats as passing and retries.
    expect(failure).toContain("Initialization failed");
    expect((await readFlags(page)).map((a) => a.errorCode)).toEqual(Array(4).fill("PROVIDER_FATAL"));
    const posts = flagpost.seen.filter((r) => r.origin === allowed.url && r.method === "POST");
    expect(posts.map((r) => [r.status, r.allowOrigin])).toEqual([[401, allowed.url]]);
    await page.close();
  });
});

// The rate limiter keeps its buckets in process, not in storage: memory is enough here.
describe("@openfeature/ofrep-web-provider in Chromium, rate limited", () => {
  let fp: Flagpost;
  let flagpost: Awaited<ReturnType<typeof startFlagpostOrigin>>;
  let clientKey: string;
  beforeEach(async () => {
    fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    await seedFlags(fp);
    clientKey = (await fp.keys.create({ name: "web", scopes: ["flags:client"] })).key;
    // Three requests, then one every two seconds: the fourth poll is refused with Retry-After.
    flagpost = await startFlagpostOrigin(fp, allowed.url, { rateLimit: { burst: 3, perSecond: 0.5 } });
  });
  afterEach(async () => {
    await flagpost.close();
    await fp.close();
  });

  it("stops polling until Retry-After has passed, which the page can read only when it is exposed", async () => {
    const { page, failure } = await openFlagsPage(allowed, flagpost.url, clientKey);
    expect(failure).toBeUndefined();
    const posts = () => flagpost.seen.filter((r) => r.origin === allowed.url && r.method === "POST");
    await expect.poll(() => posts().some((r) => r.status === 429), { timeout: 5000 }).toBe(true);
    const refused = posts().find((r) => r.status === 429)!;
    expect(refused.allowOrigin).toBe(allowed.url);
    const waitMs = Number(refused.retryAfter) * 1000;
    expect(waitMs).toBeGreaterThanOrEqual(1000);
    // The provider holds its polls until the date Retry-After gives, then resumes.
    await expect
      .poll(() => posts().some((r) => r.at > refused.at && r.status !== 429), { timeout: waitMs + 5000 })
      .toBe(true);
    const early = posts().filter((r) => r.at > refused.at && r.at < refused.at + waitMs - POLL_MS);
    expect(early).toEqual([]);
    // The flags it had stay served meanwhile.
    expect((await readFlags(page))[1]).toMatchObject({ value: "Purchase" });
    await page.close();
  });
});
