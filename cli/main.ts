#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { DEFAULT_STALE_AFTER_DAYS } from "../src/flags/insights/index.js";
import type { Flagpost, FlagpostOptions } from "../src/flagpost.js";
import { jsonLogger } from "../src/ports/logger.js";
import { commandOf, helpFor, parseCommand, USAGE, UsageError } from "./args.js";
import { deleteUserEvents, parseBefore, purgeEvents } from "./events.js";
import { experimentResults, resultsOptions } from "./experiments.js";
import { listStaleFlags, parseStaleDays } from "./flags.js";
import { createKey, listKeys, parseScopes } from "./keys.js";
import { openFlagpost, withDatabaseFile } from "./open-flagpost.js";
import { serve } from "./serve.js";

/** How long a failed command may take to exit by itself before it is made to. */
const FAILED_EXIT_GRACE_MS = 1_000;

const out = { out: (line: string) => process.stdout.write(`${line}\n`) };
// One-shot commands log only warnings, to stderr, so their stdout stays clean for scripts.
const quietLogger = jsonLogger((line) => process.stderr.write(line), "warn");

/** Opens the database FLAGPOST_DB names, runs one command on it, and always closes it. */
async function withFlagpost(
  work: (fp: Flagpost) => Promise<void>,
  options: Pick<FlagpostOptions, "insights"> = {},
): Promise<void> {
  const fp = await openFlagpost(process.env, quietLogger, options); // ready() runs the migrations
  try {
    await work(fp);
  } finally {
    await fp.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const command = parseCommand(argv);
  switch (command.name) {
    case "help":
      process.stdout.write(command.topic === undefined ? USAGE : helpFor(command.topic));
      return;
    case "version":
      process.stdout.write(`${version()}\n`);
      return;
    case "serve":
      return serve(process.env);
    case "migrate":
      return withFlagpost(async () => {
        out.out("Database schema is up to date.");
      });
    case "keys create": {
      const scopes = parseScopes(command.options.scopes as string | undefined);
      return withFlagpost((fp) => createKey(fp, scopes, command.options.name as string | undefined, out));
    }
    case "keys list":
      return withFlagpost((fp) => listKeys(fp, out));
    case "keys revoke": {
      const [id] = command.positionals;
      if (id === undefined) throw new UsageError("keys revoke needs the key id (see keys list)");
      return withFlagpost(async (fp) => {
        await fp.keys.revoke(id);
        out.out(`Revoked ${id}.`);
      });
    }
    case "events purge": {
      const before = parseBefore(command.options.before as string | undefined, Date.now());
      return withFlagpost((fp) => purgeEvents(fp, before, out));
    }
    case "events delete": {
      const userId = command.options.user as string | undefined;
      if (userId === undefined) throw new UsageError("events delete needs --user <userId>");
      return withFlagpost((fp) => deleteUserEvents(fp, userId, out));
    }
    case "experiments results": {
      const options = resultsOptions(command.options);
      return withFlagpost((fp) => experimentResults(fp, command.positionals[0]!, options, out));
    }
    case "flags stale": {
      const days = parseStaleDays(command.options.days as string | undefined) ?? DEFAULT_STALE_AFTER_DAYS;
      return withFlagpost((fp) => listStaleFlags(fp, days, out), { insights: { staleAfterDays: days } });
    }
  }
}

/** The package's version, from the package.json beside the build (dist/) or the source (cli/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  if (error instanceof UsageError) {
    // One line, ending with where to read more: the usage of that command, not every command's.
    const command = commandOf(process.argv.slice(2));
    process.stderr.write(`flagpost: ${error.message}; see flagpost ${command ? `${command} ` : ""}--help\n`);
    process.exitCode = 2;
    return;
  }
  const explained = await withDatabaseFile(error, process.env.FLAGPOST_DB || undefined);
  const message = explained instanceof Error ? explained.message : String(explained);
  process.stderr.write(`flagpost: ${message}\n`);
  process.exitCode = 1;
  // Everything flagpost opened is closed by now, but a driver may still hold a socket (pg keeps
  // one whose SCRAM exchange failed on the client side until the server times it out, a minute
  // later): a failed start must end, not hang. Unref'd, so a process with nothing left exits at once.
  setTimeout(() => process.exit(), FAILED_EXIT_GRACE_MS).unref();
});
