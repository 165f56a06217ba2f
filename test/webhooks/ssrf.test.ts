import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import type { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { isPrivateAddress, type Resolver } from "../../src/webhooks/address-policy.js";
import { type Receiver, startReceiver } from "./support/receiver.js";

/**
 * Endpoints cannot reach inside the network flagpost runs in unless private networks are allowed:
 * refused at create/update time (422 naming `endpoint`), refused again when a delivery connects
 * (a public name that resolves to loopback by then gets no request), and a redirect is never
 * followed. A real receiver on 127.0.0.1 shows that nothing arrives.
 */

describe("webhook endpoint SSRF policy", () => {
  let receiver: Receiver;
  let target: Receiver;
  let fp: Flagpost;
  /** What the injected resolver answers for hooks.example.com, changed by the tests. */
  let answer: string;
  const resolve: Resolver = async (host) => {
    if (host === "hooks.example.com") return [{ address: answer, family: answer.includes(":") ? 6 : 4 }];
    if (host === "mixed.example.com")
      return [
        { address: "93.184.216.34", family: 4 },
        { address: "10.1.2.3", family: 4 },
      ];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };

  beforeEach(async () => {
    receiver = await startReceiver();
    target = await startReceiver();
    answer = "93.184.216.34";
  });
  afterEach(async () => {
    await fp.close();
    await receiver.close();
    await target.close();
  });

  function start(allowPrivateNetworks: boolean, withResolver = true): Flagpost {
    fp = createFlagpost({
      storage: memoryStorage(),
      logger: silentLogger,
      webhooks: {
        allowPrivateNetworks,
        ...(withResolver ? { resolve } : {}),
        retrySchedule: "1h",
        autoStart: false,
      },
    });
    return fp;
  }

  async function refusal(endpoint: string): Promise<FlagpostError> {
    return (await fp.webhooks.create({ endpoint, events: ["flag.created"] }).catch((e: unknown) => e)) as FlagpostError;
  }

  it("refuses loopback, private, link-local and metadata addresses when an endpoint is created", async () => {
    start(false);
    for (const [endpoint, address] of [
      [`${receiver.url}/hook`, "127.0.0.1"],
      ["http://10.0.0.1/hook", "10.0.0.1"],
      ["http://169.254.169.254/latest/meta-data", "169.254.169.254"],
      ["http://[::1]:8080/", "::1"],
      ["https://[fd00:ec2::254]/", "fd00:ec2::254"],
      ["http://100.64.0.1/", "100.64.0.1"],
      ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
      ["http://2130706433/", "127.0.0.1"], // 127.0.0.1 written as one number
      ["https://mixed.example.com/", "10.1.2.3"],
      // IPv6 forms that carry an IPv4 address, judged by it.
      ["http://[64:ff9b::a9fe:a9fe]/", "169.254.169.254"], // NAT64 well-known prefix
      ["http://[::7f00:1]/", "127.0.0.1"], // IPv4-compatible
      ["http://[::ffff:0:a00:1]/", "10.0.0.1"], // IPv4-translated
      ["http://[2002:7f00:1::1]/", "2002:7f00:1::1"], // 6to4
    ]) {
      const error = await refusal(endpoint!);
      expect(error.code, endpoint).toBe("validation_error");
      expect(error.details, endpoint).toEqual([{ path: "endpoint", message: expect.stringContaining(address!) }]);
    }
    expect((await refusal("http://10.0.0.1/")).message).toContain("FLAGPOST_WEBHOOK_ALLOW_PRIVATE=true");
    expect((await refusal("ftp://hooks.example.com/")).message).toContain("http:// or https://");
    expect((await refusal("not a url")).code).toBe("validation_error");
    expect((await refusal("https://nowhere.invalid/")).message).toContain("could not be resolved");
    expect((await fp.webhooks.list()).data).toEqual([]);
  });

  it("refuses a name that resolves to loopback (localhost, through the system resolver)", async () => {
    start(false, false);
    const error = await refusal(`http://localhost:${receiver.port}/hook`);
    expect(error.code).toBe("validation_error");
    expect(error.message).toMatch(/resolves to (127\.0\.0\.1|::1)/);
  });

  it("refuses the same addresses on update, and accepts public ones", async () => {
    start(false);
    const hook = await fp.webhooks.create({ endpoint: "https://hooks.example.com/in", events: ["flag.created"] });
    const error = (await fp.webhooks
      .update(hook.id, { endpoint: "http://192.168.1.10/" })
      .catch((e: unknown) => e)) as FlagpostError;
    expect(error.code).toBe("validation_error");
    expect((await fp.webhooks.get(hook.id)).endpoint).toBe("https://hooks.example.com/in");
    for (const endpoint of ["http://[64:ff9b::7f00:1]/", "http://[::127.0.0.1]/", "http://[::ffff:0:c0a8:10a]/"]) {
      const embedded = (await fp.webhooks.update(hook.id, { endpoint }).catch((e: unknown) => e)) as FlagpostError;
      expect(embedded.code, endpoint).toBe("validation_error");
    }
    expect((await fp.webhooks.get(hook.id)).endpoint).toBe("https://hooks.example.com/in");
  });

  it("checks the address again when connecting: a name rebound to loopback gets no request", async () => {
    start(false);
    const hook = await fp.webhooks.create({
      endpoint: `http://hooks.example.com:${receiver.port}/hook`,
      events: ["flag.created"],
    });
    answer = "127.0.0.1"; // DNS rebinding: public at create time, loopback now
    await fp.flags.create({ key: "rebound" });
    expect(await fp.webhooks.worker.runOnce()).toBe(1);
    expect(receiver.received).toEqual([]);
    const [event] = (await fp.webhooks.events(hook.id)).data;
    expect(event!.status).toBe("attempting");
    const [attempt] = (await fp.webhooks.attempts(hook.id, event!.id)).data;
    expect(attempt).toMatchObject({ http_status_code: 0, response: expect.stringContaining("127.0.0.1") });
    for (const rebound of ["::1", "::7f00:1", "64:ff9b::7f00:1", "::ffff:0:7f00:1"]) {
      answer = rebound;
      await fp.webhooks.replay(hook.id, event!.id);
      await fp.webhooks.worker.runOnce();
      expect(receiver.received, rebound).toEqual([]);
    }
    const attempts = (await fp.webhooks.attempts(hook.id, event!.id)).data;
    expect(attempts[0]).toMatchObject({ http_status_code: 0, response: expect.stringContaining("(127.0.0.1)") });
  });

  it("never follows a redirect, even to where private networks are allowed: a 3xx is a failed attempt", async () => {
    start(true);
    receiver.answer = () => ({ status: 302, headers: { location: `${target.url}/inside` }, body: "moved" });
    const hook = await fp.webhooks.create({ endpoint: `${receiver.url}/hook`, events: ["flag.created"] });
    await fp.flags.create({ key: "redirected" });
    await fp.webhooks.worker.runOnce();
    expect(receiver.received).toHaveLength(1);
    expect(target.received).toEqual([]);
    const [event] = (await fp.webhooks.events(hook.id)).data;
    expect(event!.status).toBe("attempting");
    expect((await fp.webhooks.attempts(hook.id, event!.id)).data[0]).toMatchObject({
      http_status_code: 302,
      response: "moved",
    });
  });

  it("classifies addresses: public ones pass, the blocked ranges do not", () => {
    for (const address of [
      "93.184.216.34",
      "8.8.8.8",
      "2606:4700:4700::1111",
      "172.32.0.1",
      "100.128.0.1",
      "64:ff9b::808:808", // NAT64 of a public address
      "::ffff:8.8.8.8",
    ])
      expect(isPrivateAddress(address), address).toBe(false);
    for (const address of [
      "127.0.0.1",
      "127.255.255.254",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::",
      "::1",
      "::ffff:10.0.0.1",
      "fe80::1",
      "fd00::1",
      "fc00::1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::10.1.2.3",
      "::7f00:1",
      "::10.0.0.1",
      "::ffff:0:7f00:1",
      "::ffff:0:192.168.1.1",
      "2002:a00:1::",
      "2002:808:808::1", // 6to4 is refused whole, whatever it carries
      "not-an-address",
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });
});
