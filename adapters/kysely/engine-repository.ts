import type { Engine } from "./dialect.js";
import type { Db } from "./tables.js";

/**
 * What a repository that differs by engine holds: the database and which engine it is (the
 * differences themselves live in engines/). kysely-storage.ts builds each one through
 * translatedRepository, which wraps the methods, never these fields.
 */
export abstract class EngineRepository {
  protected readonly db: Db;
  protected readonly engine: Engine;

  constructor(db: Db, engine: Engine) {
    this.db = db;
    this.engine = engine;
  }
}
