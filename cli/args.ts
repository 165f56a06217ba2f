import { parseArgs } from "node:util";
import { ENVIRONMENT_HELP } from "./environment-help.js";

export class UsageError extends Error {}

export const USAGE = `Usage: flagpost <command> [options]     (flagpost <command> --help: that command alone)

Commands:
  serve                          Run the /v1 API (and the dashboard) on SQLite or FLAGPOST_DB
  migrate                        Create or upgrade the database schema, then exit
  keys create --scopes "<list>"  Create an API key; prints the key as the last line
        [--name <name>]          Scopes: full_access emails:send emails:read flags:read
                                 flags:write flags:evaluate events:write events:read
                                 metrics:read
  keys list                      List API keys (never the keys themselves)
  keys revoke <id>               Revoke an API key
  events purge --before <date>   Delete events whose timestamp is before <date>: an ISO 8601
                                 date or date-time with a zone, or "90d" (90 days ago)
  events delete --user <userId>  Delete every event of one user (privacy requests)
  experiments results <id> --metric <event>
        [--control <variant>]    Per-variant users, conversion, revenue per user and their
        [--from <ISO>] [--to <ISO>]  statistics against the control, and the SRM check;
        [--json]                 --json prints the results object instead of the table
  flags stale [--days <n>]       List flags not evaluated, or giving one result only, for
                                 <n> days (default 30), from the counts servers have stored

Environment:
${ENVIRONMENT_HELP}`;

type CommandName =
  | "serve"
  | "migrate"
  | "keys create"
  | "keys list"
  | "keys revoke"
  | "events purge"
  | "events delete"
  | "experiments results"
  | "flags stale";

/** The first word of commands that have a second: `flagpost keys --help` shows the keys commands. */
type CommandGroup = "keys" | "events" | "experiments" | "flags";

export interface Command {
  name: CommandName | "help" | "version";
  options: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** For "help": the command (or group of commands) whose help to print; undefined prints the whole usage. */
  topic?: CommandName | CommandGroup | undefined;
}

interface CommandSpec {
  /** The usage line after "flagpost ". */
  usage: string;
  summary: string;
  /** The options it takes (string-valued unless listed in BOOLEAN_OPTIONS), with their help. */
  options: Record<string, string>;
  /** How many positional arguments (after the command words) it takes. */
  positionals: number;
}

const BOOLEAN_OPTIONS = new Set(["json", "help", "version"]);

/** Every command: its usage, options and arguments, for parsing and for per-command --help. */
const COMMANDS: Record<CommandName, CommandSpec> = {
  serve: {
    usage: "serve",
    summary:
      "Run the /v1 API, the dashboard and the email worker until SIGINT/SIGTERM (environment: see flagpost --help)",
    options: {},
    positionals: 0,
  },
  migrate: {
    usage: "migrate",
    summary: "Create or upgrade the database schema of FLAGPOST_DB, then exit",
    options: {},
    positionals: 0,
  },
  "keys create": {
    usage: 'keys create --scopes "<list>" [--name <name>]',
    summary: "Create an API key; prints the key as the last line",
    options: {
      scopes:
        "space- or comma-separated: full_access emails:send emails:read flags:read flags:write flags:evaluate events:write events:read metrics:read",
      name: "a label shown by keys list",
    },
    positionals: 0,
  },
  "keys list": {
    usage: "keys list",
    summary: "List API keys (never the keys themselves)",
    options: {},
    positionals: 0,
  },
  "keys revoke": {
    usage: "keys revoke <id>",
    summary: "Revoke an API key (its id from keys list)",
    options: {},
    positionals: 1,
  },
  "events purge": {
    usage: "events purge --before <date>",
    summary: "Delete events whose timestamp is before <date>",
    options: { before: 'an ISO 8601 date or date-time with a zone, or "90d" (90 days ago)' },
    positionals: 0,
  },
  "events delete": {
    usage: "events delete --user <userId>",
    summary: "Delete every event of one user (privacy requests)",
    options: { user: "the userId whose events go" },
    positionals: 0,
  },
  "experiments results": {
    usage: "experiments results <id> --metric <event> [--control <variant>] [--from <ISO>] [--to <ISO>] [--json]",
    summary: "Per-variant users, conversion, revenue per user, their statistics against the control, and the SRM check",
    options: {
      metric: "the conversion event",
      control: "the variant the others are compared with",
      from: "first instant counted (ISO 8601, inclusive)",
      to: "end of the window (ISO 8601, exclusive)",
      json: "print the results object instead of the table",
    },
    positionals: 1,
  },
  "flags stale": {
    usage: "flags stale [--days <n>]",
    summary:
      "List flags not evaluated, or giving one result only, for <n> days, from the evaluation counts servers have stored",
    options: { days: "the window in days (default 30)" },
    positionals: 0,
  },
};

/** Every option any command takes, typed, so `--scopes value` reads the value (unknown ones are refused below). */
const PARSE_OPTIONS = Object.fromEntries([
  ["help", { type: "boolean", short: "h" }],
  ["version", { type: "boolean", short: "v" }],
  ...Object.values(COMMANDS).flatMap((spec) =>
    Object.keys(spec.options).map((o) => [o, { type: BOOLEAN_OPTIONS.has(o) ? "boolean" : "string" }]),
  ),
]) as Record<string, { type: "boolean" | "string"; short?: string }>;

/** `flagpost <command> --help`: the command's usage line, what it does, and its options. */
export function commandHelp(name: CommandName): string {
  const spec = COMMANDS[name];
  const width = Math.max(0, ...Object.keys(spec.options).map((o) => o.length + 2));
  const options = Object.entries(spec.options).map(([o, text]) => `  --${o.padEnd(width)}  ${text}`);
  return [
    `Usage: flagpost ${spec.usage}`,
    "",
    spec.summary,
    ...(options.length ? ["", "Options:", ...options] : []),
    "",
  ].join("\n");
}

/** `flagpost <topic> --help`: one command's help, or each of a group's (`flagpost keys --help`). */
export function helpFor(topic: CommandName | CommandGroup): string {
  if (topic in COMMANDS) return commandHelp(topic as CommandName);
  return commandsOf(topic as CommandGroup)
    .map((name) => commandHelp(name))
    .join("\n");
}

function commandsOf(group: string): CommandName[] {
  return (Object.keys(COMMANDS) as CommandName[]).filter((name) => name.startsWith(`${group} `));
}

/** The group the first word names ("keys" in `flagpost keys --help`), if it is one. */
function groupOf(words: readonly string[]): CommandGroup | undefined {
  const first = words.find((w) => !w.startsWith("-"));
  return first !== undefined && commandsOf(first).length > 0 ? (first as CommandGroup) : undefined;
}

/** The command named by the leading words of argv, if any (for help and error hints). */
export function commandOf(argv: readonly string[]): CommandName | undefined {
  const words = argv.filter((a) => !a.startsWith("-"));
  const two = words.slice(0, 2).join(" ");
  if (two in COMMANDS) return two as CommandName;
  return words[0] !== undefined && words[0] in COMMANDS ? (words[0] as CommandName) : undefined;
}

/**
 * Parses argv (without node and the script path) into one command. Every mistake is a UsageError
 * in our words, naming the option or argument: unknown options, an option the command does not
 * take, a missing value, extra arguments.
 */
export function parseCommand(argv: string[]): Command {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: PARSE_OPTIONS,
  });
  if (values.version) return { name: "version", options: {}, positionals: [] };
  const first = positionals[0];
  const words = first === "help" ? positionals.slice(1) : positionals;
  const name = commandOf(words);
  if (values.help || first === undefined || first === "help") {
    return { name: "help", options: {}, positionals: [], topic: name ?? groupOf(words) };
  }
  if (name === undefined) {
    const group = groupOf(words);
    if (group !== undefined && words.length === 1) {
      const subcommands = commandsOf(group).map((c) => c.slice(group.length + 1));
      throw new UsageError(
        `"${group}" needs a command: ${subcommands.slice(0, -1).join(", ")} or ${subcommands.at(-1)}`,
      );
    }
    throw new UsageError(`unknown command "${positionals.join(" ")}"`);
  }
  const spec = COMMANDS[name];
  const options: Command["options"] = {};
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = `--${token.name}`;
    if (!(token.name in spec.options)) {
      throw new UsageError(
        Object.values(COMMANDS).some((c) => token.name in c.options)
          ? `"${name}" does not take ${option}`
          : `unknown option ${token.rawName}`,
      );
    }
    if (BOOLEAN_OPTIONS.has(token.name)) {
      if (token.value !== undefined) throw new UsageError(`${option} takes no value`);
      options[token.name] = true;
    } else {
      if (token.value === undefined || token.value === "") throw new UsageError(`${option} needs a value`);
      options[token.name] = token.value;
    }
  }
  const rest = positionals.slice(name.split(" ").length);
  if (rest.length > spec.positionals) {
    throw new UsageError(
      spec.positionals === 0
        ? `"${name}" takes no arguments (got "${rest.join(" ")}")`
        : `"${name}" takes ${spec.positionals} argument, got ${rest.length}`,
    );
  }
  return { name, options, positionals: rest };
}
