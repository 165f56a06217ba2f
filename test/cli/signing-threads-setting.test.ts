import { expect, it } from "vitest";
import { UsageError } from "../../cli/args.js";
import { openMailTransport, signingThreadsFrom } from "../../cli/mail-transport.js";
import { ENVIRONMENT_HELP } from "../../cli/environment-help.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} };

it("reads FLAGPOST_DKIM_SIGNING_THREADS as a whole number of 0 or more, the transport's default when unset", () => {
  expect(signingThreadsFrom({})).toBeUndefined();
  expect(signingThreadsFrom({ FLAGPOST_DKIM_SIGNING_THREADS: " " })).toBeUndefined();
  expect(signingThreadsFrom({ FLAGPOST_DKIM_SIGNING_THREADS: "0" })).toBe(0);
  expect(signingThreadsFrom({ FLAGPOST_DKIM_SIGNING_THREADS: " 3 " })).toBe(3);
});

it("refuses a FLAGPOST_DKIM_SIGNING_THREADS it cannot use, naming the variable, before serve opens a transport", async () => {
  for (const value of ["-1", "1.5", "two", "1e400"])
    expect(() => signingThreadsFrom({ FLAGPOST_DKIM_SIGNING_THREADS: value })).toThrow(
      /^FLAGPOST_DKIM_SIGNING_THREADS must be a whole number of 0 or more, not "/,
    );
  await expect(
    openMailTransport({ FLAGPOST_DKIM_SIGNING_THREADS: "many", FLAGPOST_OUTBOX_DIR: "/nonexistent" }, silent),
  ).rejects.toBeInstanceOf(UsageError);
});

it("is listed in flagpost --help", () => {
  expect(ENVIRONMENT_HELP).toMatch(/FLAGPOST_DKIM_SIGNING_THREADS\n +worker threads that DKIM-sign/);
});
