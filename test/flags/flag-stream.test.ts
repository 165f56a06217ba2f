import { afterEach, describe, expect, it } from "vitest";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { createFlagpost, type Flagpost, type FlagpostOptions } from "../../src/flagpost.js";
import type { FlagStreamBatch, FlagStreamStart } from "../../src/flags/store/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { createTestDatabase, enabledBackends, type TestDatabase } from "../support/databases.js";

/** A subscriber that records what it is told. */
function recorder() {
  const seen = {
    starts: [] as FlagStreamStart[],
    batches: [] as FlagStreamBatch[],
    keepAlives: 0,
    closed: 0,
  };
  return {
    seen,
    subscriber: {
      start: (start: FlagStreamStart) => void seen.starts.push(start),
      changed: (batch: FlagStreamBatch) => void seen.batches.push(batch),
      keepAlive: () => void (seen.keepAlives += 1),
      closed: () => void (seen.closed += 1),
    },
    /** "type key" of every change told so far. */
    changes: () => seen.batches.flatMap((b) => b.changes.map((c) => `${c.type} ${c.key}`)),
  };
}

async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("fp.flagStream", () => {
  const opened: Flagpost[] = [];
  afterEach(async () => {
    for (const fp of opened.splice(0)) await fp.close();
  });

  async function open(options: Partial<FlagpostOptions> = {}): Promise<Flagpost> {
    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger, ...options });
    opened.push(fp);
    await fp.ready();
    return fp;
  }

  it("starts from a snapshot, then tells each write as a batch labelled with its revision", async () => {
    const fp = await open();
    await fp.flags.create({ key: "b" });
    await fp.flags.create({ key: "a" });
    const r = recorder();
    await fp.flagStream.subscribe(r.subscriber);
    expect(r.seen.starts).toEqual([
      { kind: "snapshot", revision: 2, flags: [await fp.flags.get("a"), await fp.flags.get("b")] },
    ]);
    await fp.flags.update("a", { enabled: true });
    await fp.flags.delete("b");
    await eventually(() => r.changes().length === 2, "both writes were told");
    expect(r.changes()).toEqual(["flag.updated a", "flag.deleted b"]);
    expect(r.seen.batches.map((b) => b.revision)).toEqual([3, 4]);
  });

  it("replays the batches after a revision it labelled, and snapshots from one it did not or no longer keeps", async () => {
    const fp = await open({ flagStream: { replayBatches: 2 } });
    await fp.flags.create({ key: "x" });
    const first = recorder();
    await fp.flagStream.subscribe(first.subscriber);
    for (const description of ["1", "2", "3"]) {
      await fp.flags.update("x", { description });
      await eventually(() => first.seen.batches.length === Number(description), `update ${description}`);
    }
    const resume = async (revision: number) => {
      const r = recorder();
      await fp.flagStream.subscribe(r.subscriber, revision);
      return r.seen.starts[0]!;
    };
    const replay = await resume(3); // revision 3 is the batch of the 2nd update, still kept
    expect(replay).toMatchObject({ kind: "replay", revision: 4 });
    expect(replay.kind === "replay" && replay.batches.map((b) => b.revision)).toEqual([4]);
    expect(await resume(4)).toEqual({ kind: "replay", revision: 4, batches: [] });
    expect((await resume(1)).kind).toBe("snapshot"); // older than the kept batches
    expect((await resume(5)).kind).toBe("snapshot"); // ahead of this storage: another lineage
  });

  it("drops a subscriber that throws, sends keep-alives, and ends every subscription on close", async () => {
    const fp = await open({ flagStream: { keepAliveMs: 20 } });
    await fp.flags.create({ key: "k" });
    const good = recorder();
    await fp.flagStream.subscribe(good.subscriber);
    await fp.flagStream.subscribe({
      ...recorder().subscriber,
      changed: () => {
        throw new Error("broken subscriber");
      },
    });
    expect(fp.flagStream.size).toBe(2);
    await fp.flags.update("k", { enabled: true });
    await eventually(() => good.changes().length === 1, "the good subscriber heard the write");
    expect(fp.flagStream.size).toBe(1);
    await eventually(() => good.seen.keepAlives >= 2, "keep-alives");
    await fp.close();
    expect(good.seen.closed).toBe(1);
    expect(fp.flagStream.size).toBe(0);
    await expect(fp.flagStream.subscribe(recorder().subscriber)).rejects.toThrow(/closed/);
  });
});

describe.each(enabledBackends())("fp.flagStream hears other processes' writes (%s)", (backend) => {
  let database: TestDatabase | undefined;
  const opened: Flagpost[] = [];
  afterEach(async () => {
    for (const fp of opened.splice(0)) await fp.close();
    await database?.drop();
  });

  it("tells a write made through another instance on the same database", async () => {
    database = await createTestDatabase(backend);
    const [a, b] = [database.db, database.open()].map((db) => {
      const fp = createFlagpost({
        storage: kyselyStorage(db),
        logger: silentLogger,
        flagSync: { pollIntervalMs: 50 },
        flagSchedules: { autoStart: false },
      });
      opened.push(fp);
      return fp;
    }) as [Flagpost, Flagpost];
    await a.ready();
    await b.ready();
    const r = recorder();
    await a.flagStream.subscribe(r.subscriber);
    await b.flags.create({ key: "elsewhere" });
    await eventually(() => r.changes().includes("flag.created elsewhere"), "the create was told");
    await b.flags.update("elsewhere", { enabled: true });
    await b.flags.delete("elsewhere");
    await eventually(() => r.changes().includes("flag.deleted elsewhere"), "the delete was told");
    // Every batch carries a revision of the shared storage, growing.
    const revisions = r.seen.batches.map((batch) => batch.revision);
    expect([...revisions].sort((x, y) => x - y)).toEqual(revisions);
    expect(revisions.at(-1)).toBe(await b.flags.revision());
  }, 30_000);
});
