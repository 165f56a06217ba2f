import type { Page } from "playwright-core";
import { expect } from "vitest";
import { createTestStorage } from "../support/databases.js";
import { startApp, type TestApp } from "../support/servers.js";

/** The dashboard's governance tests run on SQLite (a temp file), behind a real node:http server. */
export interface GovernanceApp extends TestApp {
  /** Moves the server's clock by this many ms from the real time (to make a flag old). */
  shiftClock(ms: number): void;
}

export const DAY_MS = 86_400_000;

export const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000, interval: 50 });

export async function startGovernanceApp(): Promise<GovernanceApp> {
  const { storage, database } = await createTestStorage("sqlite");
  let offset = 0;
  let app: TestApp;
  try {
    app = await startApp({
      storage,
      clock: { now: () => Date.now() + offset },
      insights: { staleAfterDays: 1 },
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    ...app,
    shiftClock: (ms) => (offset = ms),
    close: async () => {
      try {
        await app.close();
      } finally {
        await database.drop();
      }
    },
  };
}

/** GET a /v1 path with the app's key and return `data`. */
export async function read<T>(app: TestApp, path: string): Promise<T> {
  const response = await app.call("GET", path);
  expect(response.status, path).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

/** The text of every visible item of a list, trimmed and with runs of spaces folded. */
export async function itemTexts(page: Page, selector: string): Promise<string[]> {
  const texts = await page.locator(selector).allTextContents();
  return texts.map((t) => t.replace(/\s+/g, " ").trim());
}
