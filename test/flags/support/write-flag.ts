import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { kyselyStorage } from "../../../adapters/kysely/index.js";
import { createFlagpost } from "../../../src/flagpost.js";
import { silentLogger } from "../../../src/ports/logger.js";

/**
 * Another process for the cross-process freshness test: opens the PostgreSQL schema given, and
 * for each line `<key> <userId>` read on stdin makes the flag target exactly that user, printing
 * `written <key> <userId>` once the write has committed. Exits when stdin closes.
 */
const [url, schema] = process.argv.slice(2);
if (!url || !schema) throw new Error("usage: write-flag.ts <postgres url> <schema>");

const db = new Kysely<any>({
  dialect: new PostgresDialect({
    pool: new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 2 }),
  }),
});
const fp = createFlagpost({ storage: kyselyStorage(db, { destroyOnClose: true }), logger: silentLogger });
await fp.ready();
process.stdout.write("ready\n");

let buffered = "";
let chain = Promise.resolve();
process.stdin.on("data", (chunk: Buffer) => {
  buffered += chunk.toString();
  let newline: number;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const [key, userId] = buffered.slice(0, newline).trim().split(" ");
    buffered = buffered.slice(newline + 1);
    chain = chain.then(async () => {
      await fp.flags.update(key!, { rules: [{ type: "users", userIds: [userId!] }] });
      process.stdout.write(`written ${key} ${userId}\n`);
    });
  }
});
process.stdin.on("end", () => void chain.then(() => fp.close()));
