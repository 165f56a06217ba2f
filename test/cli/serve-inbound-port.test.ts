import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

/**
 * The inbound SMTP port taken by another process: `serve` says which setting and port, exits
 * non-zero, and does not log it as a failed SMTP session (issue 25, item 6).
 */
describe("flagpost serve with FLAGPOST_INBOUND_SMTP_PORT already in use", () => {
  it("says the port is in use, names the setting, and exits 1", async () => {
    const holder = createServer();
    holder.listen(0, "127.0.0.1");
    await once(holder, "listening");
    const port = (holder.address() as { port: number }).port;
    try {
      const ran = await runCli(["serve"], {
        FLAGPOST_DB: ":memory:",
        PORT: "0",
        FLAGPOST_API_KEY: "serve-inbound-port-key-0123456789",
        FLAGPOST_INBOUND_SMTP_PORT: String(port),
      });
      expect(ran.code).toBe(1);
      expect(ran.stderr).toContain(
        `flagpost: FLAGPOST_INBOUND_SMTP_PORT: port ${port} on 127.0.0.1 is already in use; stop what listens there`,
      );
      expect(ran.stdout).not.toContain("inbound smtp session failed");
    } finally {
      holder.close();
    }
  }, 60_000);
});
