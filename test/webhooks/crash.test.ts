import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnCli, waitForOutput } from "../support/cli.js";
import { allVerified, type Receiver, startReceiver } from "./support/receiver.js";

/**
 * No webhook event is lost to a crash: the real CLI (`flagpost serve` on SQLite) is killed with
 * SIGKILL while its deliveries are in flight (the receiver holds its answers) and others still
 * wait. After a restart every event reaches the receiver; the only ones that arrive twice are
 * those in flight at the crash, and both copies carry the same webhook-id and body.
 */

const API_KEY = "webhook-crash-test-key-0123456789";
const FLAGS = 24;

function listeningUrl(output: string): string {
  const line = output.split("\n").find((l) => l.includes('"msg":"listening"'));
  return (JSON.parse(line!) as { url: string }).url;
}

describe("webhook deliveries across kill -9", () => {
  let dir: string;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-webhook-crash-"));
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(): Promise<string> {
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: join(dir, "flagpost.db"),
      FLAGPOST_OUTBOX_DIR: join(dir, "outbox"),
      PORT: "0",
      FLAGPOST_API_KEY: API_KEY,
      // The receiver is on 127.0.0.1.
      FLAGPOST_WEBHOOK_ALLOW_PRIVATE: "true",
      FLAGPOST_WEBHOOK_RETRY_SCHEDULE: "200ms",
    });
    children.push(child);
    return listeningUrl(await waitForOutput(child, /"msg":"listening"/));
  }

  it(
    "delivers every event at least once after a restart, duplicates with the same webhook-id",
    { timeout: 90_000 },
    async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      receiver.answer = async () => {
        await held;
        return { status: 200 };
      };
      const url = await start();
      const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
      const created = await fetch(`${url}/v1/webhooks`, {
        method: "POST",
        headers,
        body: JSON.stringify({ endpoint: `${receiver.url}/hook`, events: ["flag.created"] }),
      });
      expect(created.status).toBe(201);
      const hook = (await created.json()) as { id: string; signing_secret: string };
      receiver.secrets = [hook.signing_secret];
      for (let i = 0; i < FLAGS; i++) {
        const response = await fetch(`${url}/v1/flags`, {
          method: "POST",
          headers,
          body: JSON.stringify({ key: `f${i}` }),
        });
        expect(response.status).toBe(201);
      }

      // Some deliveries are in flight (the receiver has them, the sender has no answer), others wait.
      await receiver.waitFor(1);
      children[0]!.kill("SIGKILL");
      await once(children[0]!, "exit");
      await delay(100);
      const inFlightAtCrash = new Set(receiver.received.map((d) => d.id));
      expect(inFlightAtCrash.size).toBeGreaterThanOrEqual(1);
      expect(inFlightAtCrash.size).toBeLessThan(FLAGS);
      receiver.answer = () => ({ status: 200 });
      release(); // the answers go to dead connections

      const second = await start();
      type Events = { data: { id: string; status: string }[] };
      let events: Events = { data: [] };
      for (let i = 0; i < 600; i++) {
        const page = await fetch(`${second}/v1/webhooks/${hook.id}/events?limit=100`, { headers });
        events = (await page.json()) as Events;
        if (events.data.length === FLAGS && events.data.every((e) => e.status === "success")) break;
        await delay(50);
      }
      expect(events.data.map((e) => e.status)).toEqual(Array(FLAGS).fill("success"));

      const copies = new Map<string, string[]>();
      for (const d of receiver.received) copies.set(d.id, [...(copies.get(d.id) ?? []), d.body]);
      for (const event of events.data) {
        const bodies = copies.get(event.id) ?? [];
        expect(bodies.length, event.id).toBeGreaterThanOrEqual(1);
        if (bodies.length > 1) expect(inFlightAtCrash.has(event.id), event.id).toBe(true);
        expect(new Set(bodies).size).toBe(1);
      }
      expect(copies.size).toBe(FLAGS);
      expect(allVerified(receiver.received)).toBe(true);
      console.info(
        `webhooks: ${FLAGS} events, ${inFlightAtCrash.size} in flight at kill -9, ${receiver.received.length} deliveries received after the restart in all`,
      );

      children[1]!.kill("SIGTERM");
      const [code] = (await once(children[1]!, "exit")) as [number | null];
      expect(code).toBe(0);
    },
  );
});
