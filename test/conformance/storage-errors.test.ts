import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type StorageActions, translatedRepository } from "../../adapters/kysely/storage-errors.js";
import { FlagpostError } from "../../src/errors.js";

/**
 * adapters/kysely/storage-errors.ts: the one wrapper that turns what a repository method throws into
 * the port's errors. The errors here are SQLite's own (a real in-memory database), not made up.
 */
class NotesRepository {
  static readonly actions: StorageActions<NotesRepository> = {
    insertNote: { action: "store the note", conflict: (id: string) => `A note with id "${id}" already exists` },
    readMissingTable: "read the notes",
    countSync: "count the notes",
    refuse: "refuse the note",
  };

  constructor(readonly db: Database.Database) {}

  async insertNote(id: string): Promise<void> {
    this.db.prepare("insert into notes (id) values (?)").run(id);
  }

  async readMissingTable(): Promise<unknown[]> {
    return this.db.prepare("select * from no_such_table").all();
  }

  /** A synchronous method: its plain value must come back as it is, not as a promise. */
  countSync(): number {
    return (this.db.prepare("select count(*) as n from notes").get() as { n: number }).n;
  }

  async refuse(): Promise<void> {
    throw new FlagpostError("validation_error", "a note must say something");
  }
}

class IncompleteRepository {
  static readonly actions = { first: "do the first thing" } as unknown as StorageActions<IncompleteRepository>;
  first(): number {
    return 1;
  }
  second(): number {
    return 2;
  }
}

describe("translatedRepository", () => {
  const opened: Database.Database[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
  });
  function notes(): NotesRepository {
    const db = new Database(":memory:");
    opened.push(db);
    db.exec("create table notes (id text primary key)");
    return translatedRepository("sqlite", NotesRepository, db);
  }

  it("turns a unique violation into conflict, with the message built from the method's arguments", async () => {
    const repository = notes();
    await repository.insertNote("n1");
    const error = await repository.insertNote("n1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect(error).toMatchObject({ code: "conflict", message: 'A note with id "n1" already exists' });
    expect((error as FlagpostError).cause).toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
  });

  it("turns any other driver error into unavailable, naming the engine, the action and the code", async () => {
    const error = await notes()
      .readMissingTable()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagpostError);
    expect((error as FlagpostError).code).toBe("unavailable");
    expect((error as FlagpostError).message).toMatch(
      /^The SQLite database could not read the notes.*\(SQLITE_ERROR\)$/,
    );
  });

  it("lets a FlagpostError through unchanged and keeps a synchronous method synchronous", async () => {
    const repository = notes();
    await expect(repository.refuse()).rejects.toMatchObject({
      code: "validation_error",
      message: "a note must say something",
    });
    await repository.insertNote("n2");
    expect(repository.countSync()).toBe(1);
  });

  it("refuses to build a repository whose method has no entry in its actions table", () => {
    expect(() => translatedRepository("sqlite", IncompleteRepository)).toThrow(
      "IncompleteRepository.second has no entry in IncompleteRepository.actions",
    );
  });
});
