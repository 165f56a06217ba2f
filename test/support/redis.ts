import { randomBytes } from "node:crypto";
import { describe, it } from "vitest";
import { REQUIRE_ALL_VARIABLE } from "./databases.js";

/**
 * Redis for the shared rate limit tests: on when FLAGPOST_TEST_REDIS_URL is set (CI sets it), a
 * failure when it is missing and FLAGPOST_TEST_REQUIRE_ALL=1, skipped otherwise. Callers share
 * one server, so each uses a key prefix of its own.
 */
export const REDIS_URL_VARIABLE = "FLAGPOST_TEST_REDIS_URL";

export function redisUrl(): string | undefined {
  const value = process.env[REDIS_URL_VARIABLE];
  return value === undefined || value === "" ? undefined : value;
}

export function describeIfRedis(title: string, register: () => void): void {
  if (redisUrl() !== undefined) {
    describe(title, register);
    return;
  }
  if (process.env[REQUIRE_ALL_VARIABLE] === "1") {
    describe(title, () => {
      it(`needs ${REDIS_URL_VARIABLE}`, () => {
        throw new Error(`${REDIS_URL_VARIABLE} is not set, and ${REQUIRE_ALL_VARIABLE}=1 makes it a failure`);
      });
    });
    return;
  }
  describe.skip(`${title} (skipped: set ${REDIS_URL_VARIABLE} to run it)`, () => {
    it(`runs only when ${REDIS_URL_VARIABLE} is set`, () => undefined);
  });
}

/** A key prefix no other test run uses. */
export function uniqueRedisPrefix(): string {
  return `flagpost-test-${randomBytes(6).toString("hex")}`;
}
