import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Start, Target } from "../../support/frameworks.js";
import { call, expectError } from "./client.js";
import { openStream } from "./sse.js";

/** Waits (bounded) until `check` holds. */
async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** docs/api.md "Flag stream": GET /v1/flags/_stream through this mount. */
export function flagStreamCases(start: Start): void {
  describe("GET /v1/flags/_stream", () => {
    let t: Target;
    beforeAll(async () => {
      t = await start({ flagpost: { flagStream: { keepAliveMs: 50 } } });
    });
    afterAll(() => t.close());

    it("sends the snapshot, then each change with the revision as id, and keep-alives", async () => {
      await t.fp.flags.create({ key: "streamed", description: "before" });
      const { response, sse } = await openStream(t.url, t.key);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      const snapshot = await sse.nextEvent();
      expect(snapshot?.event).toBe("snapshot");
      const route = await call(t, "GET", "/v1/flags/_snapshot");
      expect(JSON.parse(snapshot!.data!)).toEqual(route.body); // the same body as the snapshot route
      const first = Number(snapshot!.id);
      expect(first).toBe(await t.fp.flags.revision());

      expect((await call(t, "PATCH", "/v1/flags/streamed", { json: { enabled: true } })).status).toBe(200);
      const updated = await sse.nextEvent();
      expect(updated?.event).toBe("flag.updated");
      expect(JSON.parse(updated!.data!).data).toMatchObject({ key: "streamed", enabled: true });
      expect(Number(updated!.id)).toBeGreaterThan(first);

      await t.fp.flags.create({ key: "streamed-2" });
      const created = await sse.nextEvent();
      expect(created?.event).toBe("flag.created");
      expect(JSON.parse(created!.data!).data.key).toBe("streamed-2");
      expect((await call(t, "DELETE", "/v1/flags/streamed-2")).status).toBe(204);
      const deleted = await sse.nextEvent();
      expect({ event: deleted?.event, data: JSON.parse(deleted!.data!) }).toEqual({
        event: "flag.deleted",
        data: { data: { key: "streamed-2" } },
      });
      expect(Number(deleted!.id)).toBeGreaterThan(Number(created!.id));

      let message = await sse.next();
      while (message?.event !== "comment") message = await sse.next();
      expect(message.data).toBe("keep-alive");
      await sse.cancel();
    });

    it("resumes after Last-Event-ID with what was missed, and sends a snapshot for an id it cannot replay", async () => {
      await t.fp.flags.create({ key: "resumed" });
      const { sse } = await openStream(t.url, t.key);
      const snapshot = await sse.nextEvent();
      await sse.cancel();
      await t.fp.flags.update("resumed", { description: "missed 1" });
      await t.fp.flags.update("resumed", { description: "missed 2" });

      const again = await openStream(t.url, t.key, { "last-event-id": snapshot!.id! });
      const missed = [await again.sse.nextEvent(), await again.sse.nextEvent()];
      expect(missed.map((m) => [m?.event, JSON.parse(m!.data!).data.description])).toEqual([
        ["flag.updated", "missed 1"],
        ["flag.updated", "missed 2"],
      ]);
      expect(Number(missed[1]!.id)).toBe(await t.fp.flags.revision());
      await again.sse.cancel();

      for (const id of ["999999999", "not a number", "-1"]) {
        const fresh = await openStream(t.url, t.key, { "last-event-id": id });
        expect((await fresh.sse.nextEvent())?.event, id).toBe("snapshot");
        await fresh.sse.cancel();
      }
    });

    it("lets go of a client that disconnects", async () => {
      const controller = new AbortController();
      await eventually(() => t.fp.flagStream.size === 0, "the streams of earlier tests were let go");
      const before = 0;
      const { sse } = await openStream(t.url, t.key, {}, controller.signal);
      await sse.nextEvent();
      expect(t.fp.flagStream.size).toBe(before + 1);
      controller.abort();
      await eventually(() => t.fp.flagStream.size === before, "the server dropped the subscriber");
    });

    it("needs flags:read and takes no query parameters", async () => {
      const evaluateOnly = await t.fp.keys.create({ scopes: ["flags:evaluate"] });
      expectError(await call(t, "GET", "/v1/flags/_stream", { key: evaluateOnly.key }), 403, "restricted_api_key");
      expectError(await call(t, "GET", "/v1/flags/_stream?since=3"), 422, "validation_error");
    });
  });

  describe("GET /v1/flags/_stream when flagpost closes", () => {
    it("ends the stream cleanly", async () => {
      const t = await start();
      try {
        const { sse } = await openStream(t.url, t.key);
        expect((await sse.nextEvent())?.event).toBe("snapshot");
        await t.fp.close();
        expect(await sse.nextEvent()).toBeUndefined(); // the body ends, without an error
      } finally {
        await t.close();
      }
    });
  });
}
