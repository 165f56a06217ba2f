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
 * - syncs the live WAL file: a descriptor opened on an earlier file (deleted on the last close and
 *   created again) is reopened. A commit whose WAL file is gone, or whose frames were overwritten
 *   when the WAL restarted, was checkpointed first: SQLite syncs the WAL before a checkpoint and
 *   the database file after it, before the WAL may be restarted or deleted (https://sqlite.org/
 *   pragma.html#pragma_synchronous, "NORMAL"); that commit is already in the synced database file.
 * - syncs the directory once per WAL file it sees, so that a newly created file's name survives
 *   too (SQLite does that on the file's first sync, which NORMAL may not reach before a power loss).
 * - closes its descriptor when no accept waits, so an idle database holds none. SQLite takes no
 *   POSIX lock on the WAL file (its locks are on the database and -shm files), so closing our
 *   descriptor cannot release one of its locks.
 */
export function syncWal(walFile: string): Promise<void> {
  let syncer = syncers.get(walFile);
  if (!syncer) syncers.set(walFile, (syncer = new WalSyncer(walFile)));
  return syncer.sync();
}

/** One per WAL file in this process, so every storage on that database shares its syncs. */
const syncers = new Map<string, WalSyncer>();

interface FileId {
  dev: number;
  ino: number;
}

class WalSyncer {
  readonly #path: string;
  readonly #group = new GroupCommit<null, void>((accepts) => this.#syncGroup(accepts.length), {
    maxBatch: Number.MAX_SAFE_INTEGER,
  });
  #open: (FileId & { fd: number }) | undefined;
  /** The WAL file whose directory entry was synced. */
  #named: FileId | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  sync(): Promise<void> {
    return this.#group.add(null);
  }

  async #syncGroup(accepts: number): Promise<void[]> {
    try {
      const file = await this.#liveFile();
      if (file) {
        if (!sameFile(this.#named, file)) {
          await syncDirectory(dirname(this.#path));
          this.#named = { dev: file.dev, ino: file.ino };
        }
        await call<void>((done) => fs.fdatasync(file.fd, done));
      }
    } catch (error) {
      await this.#close();
      throw error;
    }
    if (this.#group.waiting === 0) await this.#close();
    return new Array<void>(accepts).fill(undefined);
  }

  /** A descriptor on the file now at the WAL's path; undefined when there is none (checkpointed and deleted). */
  async #liveFile(): Promise<(FileId & { fd: number }) | undefined> {
    if (this.#open) {
      const now = await call<fs.Stats | undefined>((done) => fs.stat(this.#path, missingAsUndefined(done)));
      if (sameFile(this.#open, now)) return this.#open;
      await this.#close();
    }
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
