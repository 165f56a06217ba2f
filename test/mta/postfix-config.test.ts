import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

describe("the real-MTA suite's Postfix", () => {
  it("listens only on 127.0.0.1 and sends nothing off the machine", async () => {
    const main = await readFile(new URL("./postfix/main.cf", import.meta.url), "utf8");
    expect(main).toMatch(/^inet_interfaces = loopback-only$/m);
    expect(main).toMatch(/^default_transport = error:/m);
    const transport = await readFile(new URL("./postfix/transport", import.meta.url), "utf8");
    for (const line of transport.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#")))
      expect(line).toMatch(/\ssmtp:\[127\.0\.0\.1\]:@[A-Z0-9_]+@$/);
  });
});
