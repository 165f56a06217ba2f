import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's chromium; `npm test` installs it when missing and it may (.ci/ensure-chromium). Override with FLAGPOST_CHROMIUM. */
export const CHROMIUM_PATH = process.env.FLAGPOST_CHROMIUM ?? "/usr/bin/chromium";

/** Without these flags Chromium keeps calling home, which a closed network turns into noise and stalls. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts");

export interface Browser {
  context: BrowserContext;
  /** A new tab (own sessionStorage) that records console errors and failed CSP checks. */
  newPage(width?: number): Promise<Page & { problems: string[] }>;
  close(): Promise<void>;
}

/**
 * Starts Chromium with a fresh profile. A missing browser fails loudly: these tests are part of
 * the suite, never skipped because a machine lacks a binary.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. The dashboard tests drive a real browser: ` +
        "install Debian's chromium (apt-get update && apt-get install -y chromium; npm test's pretest, .ci/ensure-chromium, does this when it may), " +
        "or point FLAGPOST_CHROMIUM at a Chromium binary.",
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "flagpost-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  context.setDefaultTimeout(10_000);
  return {
    context,
    async newPage(width = 1280) {
      const page = Object.assign(await context.newPage(), { problems: [] as string[] });
      await page.setViewportSize({ width, height: 900 });
      page.on("console", (message) => {
        if (message.type() === "error") page.problems.push(`console: ${message.text()}`);
      });
      page.on("pageerror", (error) => page.problems.push(`page error: ${error.message}`));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** Opens the dashboard, pastes the key and waits for the flag list. */
export async function connect(page: Page, dashboardUrl: string, key: string): Promise<void> {
  await page.goto(dashboardUrl);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Connect" }).click();
  await page.getByRole("heading", { level: 1, name: "Flags" }).waitFor();
}

/** Presses Tab until `selector` has the focus (at most `max` times), as a keyboard user would. */
export async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await page.locator(`${selector}:focus`).count()) > 0) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Text of an element once it is visible. */
export async function visibleText(page: Page, selector: string): Promise<string> {
  const locator = page.locator(selector);
  await locator.waitFor();
  return (await locator.textContent()) ?? "";
}
