import { afterEach, expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { describeEachStorage } from "../support/storage-backends.js";
import { type Receiver, startReceiver } from "./support/receiver.js";

/**
 * One endpoint that never answers must delay only its own deliveries: with two real receivers on
 * 127.0.0.1, one hanging every request and one answering at once, every delivery to the healthy
 * one arrives within 2 s of its event, on every storage, while the hung one holds at most its
 * per-endpoint share of the worker.
 */
const EVENTS = 30;

describeEachStorage("webhook fairness between endpoints", (storage) => {
  let fp: Flagpost | undefined;
  let hung: Receiver | undefined;
  let healthy: Receiver | undefined;
  afterEach(async () => {
    await hung?.close(); // ends the hanging requests, so the worker can stop
    await fp?.close();
    await healthy?.close();
    fp = hung = healthy = undefined;
  });

  it("delivers to a healthy endpoint within 2 s while another never answers", async () => {
    hung = await startReceiver();
    healthy = await startReceiver();
    let hanging = 0;
    hung.answer = () => {
      hanging += 1;
      return new Promise(() => undefined); // never answers: the sender's 10 s deadline is all that ends it
    };
    fp = createFlagpost({
      storage: storage(),
      logger: silentLogger,
      webhooks: { allowPrivateNetworks: true, retrySchedule: "1h" },
    });
    await fp.ready();
    await fp.webhooks.create({ endpoint: `${hung.url}/hook`, events: ["flag.created"] });
    await fp.webhooks.create({ endpoint: `${healthy.url}/hook`, events: ["flag.created"] });

    // Each delivery's lag: from its event's created_at to its arrival at the healthy receiver.
    const lags: number[] = [];
    healthy.answer = (delivery) => {
      lags.push(Date.now() - Date.parse(delivery.payload.created_at));
      return { status: 200 };
    };
    for (let n = 0; n < EVENTS; n += 1) await fp.flags.create({ key: `fair-${n}` });
    const arrived = await healthy.waitFor(EVENTS, 10_000);
    expect(arrived).toHaveLength(EVENTS);
    expect(Math.max(...lags)).toBeLessThan(2_000);
    // The hung endpoint holds at most its share (3 by default) of the 10 slots.
    expect(hanging).toBeLessThanOrEqual(3);
  });
});
