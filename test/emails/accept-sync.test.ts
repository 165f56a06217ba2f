import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { engineTraits } from "../../adapters/kysely/engines/index.js";
import { kyselyStorage } from "../../adapters/kysely/index.js";
import { withSyncedCommit } from "../../adapters/kysely/relaxed-durability.js";
import { openDatabase } from "../../cli/open-database.js";
import { createFlagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import { until } from "../support/until.js";
import { request } from "./support/outbox.js";

type Done = (error: NodeJS.ErrnoException | null) => void;

/**
 * Every fdatasync and fsync of the process, held until the test releases it; `ino` is the
 * inode the descriptor was on when the call was made (the WAL file, a directory, …).
 */
function heldSyncs() {
  const realDatasync = fs.fdatasync.bind(fs);
  const realFsync = fs.fsync.bind(fs);
  const datasyncs: { ino: number; released: boolean; release(): void }[] = [];
  const directorySyncs: number[] = [];
  vi.spyOn(fs, "fdatasync").mockImplementation(((fd: number, done: Done) => {
    const sync = {
      ino: fs.fstatSync(fd).ino,
      released: false,
      release: () => ((sync.released = true), realDatasync(fd, done)),
    };
    datasyncs.push(sync);
  }) as typeof fs.fdatasync);
  vi.spyOn(fs, "fsync").mockImplementation(((fd: number, done: Done) => {
    const stats = fs.fstatSync(fd);
    if (stats.isDirectory()) directorySyncs.push(stats.ino);
    realFsync(fd, done);
  }) as typeof fs.fsync);
  return { datasyncs, directorySyncs };
}

/**
 * The files under `dir` this process has a descriptor on (Linux's /proc; undefined elsewhere): SQLite's
 * own and the WAL syncer's.
 */
function openFilesUnder(dir: string): string[] | undefined {
  if (!fs.existsSync("/proc/self/fd")) return undefined;
  const targets = fs.readdirSync("/proc/self/fd").map((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return ""; // the descriptor readdir itself used, closed since
    }
  });
  return targets.filter((target) => target.startsWith(dir));
}

/** Whether `promise` has settled within a few turns and a short wait. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await delay(60);
  return done;
}

async function sqliteFlagpost(file: string) {
  const db = await openDatabase(file);
  const storage = kyselyStorage(db, { destroyOnClose: true });
  await storage.migrate();
  const fp = createFlagpost({ storage, logger: silentLogger });
  await fp.ready();
  return { db, fp, storage };
}

/**
 * Issue 30, decision 1: an acceptance survives a power loss. On SQLite in WAL mode its commit is
 * at NORMAL and the WAL file is fdatasynced on the thread pool before send() answers
 * (adapters/kysely/engines/sqlite-wal-sync.ts).
 */
describe("SQLite: the accept's fsync, off the event loop", () => {
  let dir: string | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    // Every storage closed: no descriptor is left on the test's files, the syncer's included.
    if (dir) expect(openFilesUnder(dir) ?? []).toEqual([]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("send() answers only after an fdatasync of the live -wal file has returned; the commit was at NORMAL, FULL after", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-accept-sync-"));
    const file = join(dir, "flagpost.db");
    const { db, fp, storage } = await sqliteFlagpost(file);
    const syncs = heldSyncs();
    try {
      const sending = fp.emails.send(request(1));
      await until("the accept's fdatasync", () => syncs.datasyncs.length === 1, 5_000);
      expect(syncs.datasyncs[0]!.ino).toBe(fs.statSync(`${file}-wal`).ino);
      // Committed (the row is there) but not answered while the sync is held.
      const stored = await sql<{ n: number }>`select count(*) as n from flagpost_emails`.execute(db);
      expect(stored.rows[0]!.n).toBe(1);
      expect(await settled(sending)).toBe(false);
      syncs.datasyncs[0]!.release();
      expect((await sending).status).toBe("queued");
      expect((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]!.synchronous).toBe(2);
      // The directory of the WAL file was synced once, for its name.
      expect(syncs.directorySyncs).toEqual([fs.statSync(dir).ino]);
    } finally {
      await fp.close();
      await storage.close();
    }
  });

  it("a sync already running when an accept commits does not answer it: the next one does", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-accept-sync-"));
    const { fp, storage } = await sqliteFlagpost(join(dir, "flagpost.db"));
    const syncs = heldSyncs();
    try {
      const first = fp.emails.send(request(1));
      await until("the first fdatasync", () => syncs.datasyncs.length === 1, 5_000);
      // With an Idempotency-Key the send commits on its own, not in the next group of sends, which
      // waits for this one: the second email commits while the first sync runs.
      const second = fp.emails.send(request(2), { idempotencyKey: "second" });
      await until("the second commit", async () => (await fp.emails.list({ limit: 10 })).data.length === 2, 5_000);
      expect(syncs.datasyncs).toHaveLength(1);
      syncs.datasyncs[0]!.release();
      await first;
      await until("the second fdatasync", () => syncs.datasyncs.length === 2, 5_000);
      expect(await settled(second)).toBe(false);
      syncs.datasyncs[1]!.release();
      expect((await second).status).toBe("queued");
      // Five at once after a commit each: one sync answers them all.
      const five = Promise.all([3, 4, 5, 6, 7].map((i) => fp.emails.send(request(i))));
      await until("the group's fdatasync", () => syncs.datasyncs.length === 3, 5_000);
      syncs.datasyncs[2]!.release();
      expect(await five).toHaveLength(5);
      expect(syncs.datasyncs).toHaveLength(3);
    } finally {
      await fp.close();
      await storage.close();
    }
  });

  it("consecutive groups each cost one fdatasync, with no reopen while the inode is the same; storage.close() closes the descriptor", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-accept-sync-"));
    const file = join(dir, "flagpost.db");
    const db = await openDatabase(file);
    // The caller keeps the instance: the storage's close must release the descriptor by itself.
    const storage = kyselyStorage(db);
    await storage.migrate();
    const fp = createFlagpost({ storage, logger: silentLogger });
    await fp.ready();
    const walOpens: number[] = [];
    const closed: number[] = [];
    const realOpen = fs.open.bind(fs) as (...args: unknown[]) => void;
    vi.spyOn(fs, "open").mockImplementation(((path: string, flags: string, done: (e: unknown, fd?: number) => void) =>
      realOpen(path, flags, (error: unknown, fd?: number) => {
        if (path === `${file}-wal` && fd !== undefined) walOpens.push(fd);
        done(error, fd);
      })) as unknown as typeof fs.open);
    const realClose = fs.close.bind(fs) as (fd: number, done: Done) => void;
    vi.spyOn(fs, "close").mockImplementation(((fd: number, done: Done) => {
      closed.push(fd);
      realClose(fd, done);
    }) as typeof fs.close);
    const datasync = vi.spyOn(fs, "fdatasync");
    try {
      for (const i of [1, 2, 3, 4]) expect((await fp.emails.send(request(i))).status).toBe("queued");
      expect(datasync).toHaveBeenCalledTimes(4);
      expect(walOpens).toHaveLength(1);
      expect(datasync.mock.calls.every(([fd]) => fd === walOpens[0])).toBe(true);
      expect(closed).not.toContain(walOpens[0]);
    } finally {
      await fp.close();
      await storage.close();
    }
    expect(closed).toContain(walOpens[0]);
    // SQLite still has the file open, the syncer no longer.
    const open = openFilesUnder(dir);
    if (open) expect(open.filter((target) => target.endsWith("-wal"))).toHaveLength(1);
    await db.destroy();
  });

  it("a WAL file deleted on close and created again is the one synced, its directory entry synced anew", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-accept-sync-"));
    const file = join(dir, "flagpost.db");
    const before = await openDatabase(file);
    await sql`create table accepted (n integer)`.execute(before);
    const syncs = heldSyncs();
    const first = withSyncedCommit(before, "sqlite", (held) => sql`insert into accepted values (1)`.execute(held));
    await until("the first fdatasync", () => syncs.datasyncs.length === 1, 5_000);
    const firstWal = fs.statSync(`${file}-wal`).ino;
    // The last connection closes: SQLite checkpoints into the database file and deletes the WAL.
    await before.destroy();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const after = await sqliteFlagpost(file);
    try {
      // Queued behind the held sync, so the syncer still holds its descriptor on the old file.
      const second = after.fp.emails.send(request(2));
      await until(
        "the second commit",
        async () => (await after.fp.emails.list({ limit: 10 })).data.length === 1,
        5_000,
      );
      syncs.datasyncs[0]!.release();
      await first;
      const secondWal = fs.statSync(`${file}-wal`).ino;
      expect(secondWal).not.toBe(firstWal);
      // The old descriptor may be synced beside the check that finds it replaced: that answers no one.
      await until(
        "an fdatasync of the new WAL file",
        () => {
          for (const sync of syncs.datasyncs) if (sync.ino !== secondWal && !sync.released) sync.release();
          return syncs.datasyncs.some((sync) => sync.ino === secondWal);
        },
        5_000,
      );
      expect(await settled(second)).toBe(false);
      for (const sync of syncs.datasyncs) if (!sync.released) sync.release();
      await second;
      expect(syncs.datasyncs.map((s) => s.ino)).toEqual([firstWal, firstWal, secondWal]);
      expect(syncs.directorySyncs).toEqual([fs.statSync(dir).ino, fs.statSync(dir).ino]);
    } finally {
      await engineTraits("sqlite").releaseSyncedCommits(before);
      await after.fp.close();
      await after.storage.close();
    }
  });

  it("an in-memory database and a rollback journal commit as before, with no fdatasync of their own", async () => {
    dir = await mkdtemp(join(tmpdir(), "flagpost-accept-sync-"));
    const journal = await openDatabase(join(dir, "journal.db"));
    await sql`PRAGMA journal_mode = DELETE`.execute(journal);
    for (const db of [await openDatabase(":memory:"), journal]) {
      const storage = kyselyStorage(db, { destroyOnClose: true });
      await storage.migrate();
      const fp = createFlagpost({ storage, logger: silentLogger });
      await fp.ready();
      const syncs = heldSyncs();
      try {
        expect((await fp.emails.send(request(1))).status).toBe("queued");
        expect(syncs.datasyncs).toHaveLength(0);
      } finally {
        vi.restoreAllMocks();
        await fp.close();
        await storage.close();
      }
    }
  });
});
