import fs from "node:fs";
import { dirname } from "node:path";
import { GroupCommit } from "../../../src/jobs/index.js";

/**
 * The fsync of an acceptance, off the event loop (adapters/kysely/relaxed-durability.ts says
 * why this is as durable as synchronous=FULL). The accepting transaction commits at NORMAL, in WAL
 * mode: its frames are written to `<db>-wal` but not synced. Then `syncWal` fdatasyncs that file
 * on libuv's thread pool; the caller is answered only once it has. fdatasync works on the inode,
 * so syncing our own descriptor flushes the frames SQLite wrote through its own.
 *
 * Accepts share syncs by group commit (src/jobs/group-commit.ts): a sync that starts after my
 * commit covers me; one already running when I committed may not, and groups never overlap, so I
 * wait for the next. Each group:
 * - syncs the live WAL file: the descriptor stays open between groups, and the path is stat'ed
 *   alongside its fdatasync (both on the thread pool at once, so the check adds no wait). While
 *   the inode at the path is the one the descriptor is on, that sync covered every commit before
 *   the group. When it is not (the file was deleted on the last close and created again), the
 *   descriptor is reopened on the new file and that one is synced. A commit whose WAL file is
 *   gone, or whose frames were overwritten when the WAL restarted, was checkpointed first: SQLite
 *   syncs the WAL before a checkpoint and the database file after it, before the WAL may be
 *   restarted or deleted (https://sqlite.org/pragma.html#pragma_synchronous, "NORMAL"); that
 *   commit is already in the synced database file.
 * - syncs the directory once per WAL file it sees, so that a newly created file's name survives
 *   too (SQLite does that on the file's first sync, which NORMAL may not reach before a power loss).
 *
 * The descriptor is kept for as long as a storage on that database is open, not reopened per
 * group: a group then costs one wait on the thread pool instead of four or five (stat, open,
 * fstat, fdatasync, close). `releaseWalSyncs` closes it when the last storage using it closes
 * (kysely-storage.ts, close()). Holding it is harmless to SQLite: it takes no POSIX lock on the
 * WAL file (its locks are on the database and -shm files), and a file deleted while we hold it
 * only keeps its blocks until we close it or the next group finds it replaced.
 */
export function syncWal(walFile: string, owner: object): Promise<void> {
  if (released.has(owner)) return syncOnce(walFile);
  let entry = syncers.get(walFile);
  if (!entry) syncers.set(walFile, (entry = { syncer: new WalSyncer(walFile), owners: new Set() }));
  entry.owners.add(owner);
  return entry.syncer.sync();
}

/**
 * `owner` (the Kysely instance of a storage) will sync no more: each WAL syncer it was the last
 * user of closes its descriptor, after the groups already queued on it.
 */
export async function releaseWalSyncs(owner: object): Promise<void> {
  released.add(owner);
  const closing: Promise<void>[] = [];
  for (const [path, entry] of syncers) {
    if (!entry.owners.delete(owner) || entry.owners.size > 0) continue;
    syncers.delete(path);
    closing.push(entry.syncer.close());
  }
  // A failed sync closed the descriptor already; its accepts got the error.
  await Promise.all(closing.map((done) => done.catch(() => undefined)));
}

/** One per WAL file in this process, so every storage on that database shares its syncs; with the storages using it. */
const syncers = new Map<string, { syncer: WalSyncer; owners: Set<object> }>();

/** Owners that were released: an accept that still comes (committed while closing) syncs on a descriptor of its own. */
const released = new WeakSet<object>();

async function syncOnce(walFile: string): Promise<void> {
  const once = new WalSyncer(walFile);
  try {
    await once.sync();
  } finally {
    await once.close().catch(() => undefined);
  }
}

interface FileId {
  dev: number;
  ino: number;
}

/** An accept waiting for the next sync, or the last owner's close, which waits for the groups before it. */
type Request = "sync" | "close";

class WalSyncer {
  readonly #path: string;
  readonly #group = new GroupCommit<Request, void>((requests) => this.#runGroup(requests), {
    maxBatch: Number.MAX_SAFE_INTEGER,
  });
  #open: (FileId & { fd: number }) | undefined;
  /** The WAL file whose directory entry was synced. */
  #named: FileId | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  sync(): Promise<void> {
    return this.#group.add("sync");
  }

  close(): Promise<void> {
    return this.#group.add("close");
  }

  async #runGroup(requests: Request[]): Promise<void[]> {
    try {
      if (requests.includes("sync")) await this.#syncLiveFile();
    } catch (error) {
      // The next group opens the file afresh.
      await this.#close();
      throw error;
    }
    if (requests.includes("close")) await this.#close();
    return new Array<void>(requests.length).fill(undefined);
  }

  async #syncLiveFile(): Promise<void> {
    const open = this.#open;
    if (open) {
      const [now] = await Promise.all([
        call<fs.Stats | undefined>((done) => fs.stat(this.#path, missingAsUndefined(done))),
        call<void>((done) => fs.fdatasync(open.fd, done)),
      ]);
      if (sameFile(open, now)) return;
      // Replaced, or gone (checkpointed and deleted, see above): the old file's blocks are let go.
      await this.#close();
    }
    const file = await this.#openLiveFile();
    if (!file) return;
    if (!sameFile(this.#named, file)) {
      await syncDirectory(dirname(this.#path));
      this.#named = { dev: file.dev, ino: file.ino };
    }
    await call<void>((done) => fs.fdatasync(file.fd, done));
  }

  /** A descriptor on the file now at the WAL's path; undefined when there is none (checkpointed and deleted). */
  async #openLiveFile(): Promise<(FileId & { fd: number }) | undefined> {
    const fd = await call<number | undefined>((done) => fs.open(this.#path, "r", missingAsUndefined(done)));
    if (fd === undefined) return undefined;
    const stats = await call<fs.Stats>((done) => fs.fstat(fd, done)).catch(async (error: unknown) => {
      await call<void>((done) => fs.close(fd, done));
      throw error;
    });
    return (this.#open = { fd, dev: stats.dev, ino: stats.ino });
  }

  async #close(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    if (open) await call<void>((done) => fs.close(open.fd, done)).catch(() => undefined);
  }
}

/** fsync of a directory: where a new file's name is made durable (not on Windows, which opens no directory). */
async function syncDirectory(directory: string): Promise<void> {
  if (process.platform === "win32") return;
  const fd = await call<number>((done) => fs.open(directory, "r", done));
  try {
    await call<void>((done) => fs.fsync(fd, done));
  } finally {
    await call<void>((done) => fs.close(fd, done));
  }
}

function sameFile(a: FileId | undefined, b: FileId | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

type Callback<T> = (error: NodeJS.ErrnoException | null, value?: T) => void;

/** A callback that reads "no such file" as an undefined result. */
function missingAsUndefined<T>(done: Callback<T | undefined>): Callback<T> {
  return (error, value) => (error?.code === "ENOENT" ? done(null, undefined) : done(error, value));
}

/**
 * node:fs's callback functions, awaited: called through the module object, not imported by name
 * (test/emails/accept-sync.test.ts watches fdatasync there).
 */
function call<T>(start: (done: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}
