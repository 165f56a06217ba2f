import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/memory/index.js";
import type { Storage } from "../../../src/ports/storage/index.js";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError, expectResendError, type Reply } from "./client.js";

const SECRET = "postgres://flagpost:s3cr3t-Pa55w0rd@db.internal:5432/prod";
const SQL = 'SELECT "id", "key" FROM "flags" WHERE "key" = $1';

/**
 * A memory storage whose flag reads and transactions (flag writes) fail the way a raw driver error would, once
 * `breakNow()` is called (flagpost's start-up loads the flag snapshot, which must succeed).
 */
function brokenStorage(): { storage: Storage; breakNow(): void } {
  const storage = memoryStorage();
  let broken = false;
  const fail =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (broken) throw new Error(`connect ECONNREFUSED ${SECRET} while running ${SQL}`);
      return work(...args);
    };
  const flags = storage.flags;
  return {
    storage: {
      ...storage,
      flags: {
        list: fail(flags.list.bind(flags)),
        get: fail(flags.get.bind(flags)),
        revision: fail(flags.revision.bind(flags)),
      },
      transaction: fail(storage.transaction.bind(storage)),
    },
    breakNow: () => {
      broken = true;
    },
  };
}

function expectNothingInternal(reply: Reply): void {
  expect(reply.headers.get("ratelimit-limit"), "ratelimit headers on a 500").toMatch(/^\d+$/);
  for (const leak of ["s3cr3t", "postgres://", "SELECT", "ECONNREFUSED", "db.internal", "stack", "    at "]) {
    expect(reply.text).not.toContain(leak);
  }
}

/** docs/api.md "Errors", last row: 500 internal_server_error with nothing internal in the body. */
export function internalErrorCases(start: Start): void {
  describe("unexpected failures", () => {
    let t: Target;
    const lines: string[] = [];
    beforeAll(async () => {
      const logger = {
        info: () => {},
        warn: () => {},
        error: (msg: string, fields?: Record<string, unknown>) => void lines.push(JSON.stringify({ msg, ...fields })),
      };
      const broken = brokenStorage();
      t = await start({ storage: broken.storage, logger });
      broken.breakNow();
    });
    afterAll(() => t.close());

    it("answers 500 internal_server_error with a generic message on every flag route", async () => {
      const requests: [string, string, unknown][] = [
        ["GET", "/v1/flags", undefined],
        ["POST", "/v1/flags", { key: "x" }],
        ["GET", "/v1/flags/x", undefined],
        ["PATCH", "/v1/flags/x", { enabled: true }],
        ["DELETE", "/v1/flags/x", undefined],
        ["POST", "/v1/flags/x/evaluate", {}],
      ];
      for (const [method, path, json] of requests) {
        const reply = await call(t, method, path, json === undefined ? {} : { json });
        expectError(reply, 500, "internal_server_error");
        expectNothingInternal(reply);
      }
    });

    it("logs the failure for the operator, without the API key", () => {
      expect(lines.length).toBeGreaterThanOrEqual(6);
      expect(lines.join("\n")).toContain("ECONNREFUSED");
      for (const line of lines) {
        expect(line).not.toContain(t.key);
        expect(line, "a password inside a URL is masked in logs").not.toContain("s3cr3t");
      }
    });
  });

  describe("a storage failure while checking the key", () => {
    let t: Target;
    beforeAll(async () => {
      const storage = memoryStorage();
      const keys = storage.apiKeys;
      let broken = false;
      const apiKeys: Storage["apiKeys"] = {
        insert: (record) => keys.insert(record),
        list: () => keys.list(),
        revoke: (id, at) => keys.revoke(id, at),
        findByHash: (hash) => (broken ? Promise.reject(new Error(`timeout: ${SECRET}`)) : keys.findByHash(hash)),
        findById: (id) => keys.findById(id),
      };
      t = await start({ storage: { ...storage, apiKeys } });
      broken = true;
    });
    afterAll(() => t.close());

    it("answers 500 in the path's error shape, not the storage's message", async () => {
      const flags = await call(t, "GET", "/v1/flags", { key: "fp_not-cached-yet-0000000000000000" });
      expectError(flags, 500, "internal_server_error");
      expectNothingInternal(flags);
      const emails = await call(t, "GET", "/v1/emails/x", { key: "fp_not-cached-yet-0000000000000000" });
      expectResendError(emails, 500, "internal_server_error");
      expectNothingInternal(emails);
    });
  });
}
