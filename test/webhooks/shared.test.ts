import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { createTestDatabase, describeIfBackend, type TestDatabase } from "../support/databases.js";
import { allVerified, type Receiver, startReceiver } from "./support/receiver.js";

/**
 * Several processes on one server database share the deliveries as they share the outbox: three
 * flagpost instances, each with its own connection pool (as three processes would have), run
 * their workers at once over events stored by one of them; when nothing crashes, each event
 * reaches the receiver exactly once.
 */

const PROCESSES = 3;
const EVENTS = 60;

for (const backend of ["postgres", "mysql"] as const) {
  describeIfBackend(backend, `webhook deliveries shared by ${PROCESSES} processes (${backend})`, () => {
    let database: TestDatabase;
    let receiver: Receiver;
    let instances: Flagpost[];

    beforeEach(async () => {
      database = await createTestDatabase(backend);
      receiver = await startReceiver();
      instances = Array.from({ length: PROCESSES }, () =>
        createFlagpost({
          storage: kyselyStorage(database.open(), { destroyOnClose: true }),
          logger: silentLogger,
          webhooks: { allowPrivateNetworks: true, autoStart: false, concurrency: 4, pollIntervalMs: 50 },
        }),
      );
      for (const fp of instances) await fp.ready();
    });
    afterEach(async () => {
      await Promise.allSettled(instances.map((fp) => fp.close()));
      await receiver.close();
      await database.drop();
    });

    it("delivers each event once, whichever process claims it", { timeout: 60_000 }, async () => {
      const [first] = instances as [Flagpost];
      const hook = await first.webhooks.create({ endpoint: `${receiver.url}/shared`, events: ["flag.created"] });
      receiver.secrets = [hook.signing_secret];
      for (let i = 0; i < EVENTS; i++) await first.flags.create({ key: `shared-${i}` });
      // A short wait per answer keeps every worker busy, so the work spreads over the processes.
      receiver.answer = async () => {
        await delay(5);
        return { status: 200 };
      };
      for (const fp of instances) fp.webhooks.worker.start();
      await receiver.waitFor(EVENTS, 30_000);
      for (let i = 0; i < 200; i++) {
        const events = await first.webhooks.events(hook.id, { limit: 100 });
        if (events.data.every((e) => e.status === "success")) break;
        await delay(25);
      }
      await delay(300); // anything sent twice would arrive meanwhile
      const ids = receiver.received.map((d) => d.id);
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
      expect(allVerified(receiver.received)).toBe(true);
      const events = await first.webhooks.events(hook.id, { limit: 100 });
      expect(events.data.map((e) => e.status)).toEqual(Array(EVENTS).fill("success"));
    });
  });
}
