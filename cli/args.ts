import { parseArgs } from "node:util";

export class UsageError extends Error {}

export const USAGE = `Usage: flagpost <command> [options]

Commands:
  serve                          Run the /v1 API (and the dashboard) on SQLite or FLAGPOST_DB
  migrate                        Create or upgrade the database schema, then exit
  keys create --scopes "<list>"  Create an API key; prints the key as the last line
        [--name <name>]          Scopes: full_access emails:send emails:read flags:read
                                 flags:write flags:evaluate events:write events:read
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
  FLAGPOST_DB       ./flagpost.db (default), :memory:, a file path, postgres://…, mysql://…
  PORT              port to listen on (default 3000)
  HOST              address to listen on (default 127.0.0.1; 0.0.0.0 in a container)
  FLAGPOST_API_KEY  make sure this exact key (16+ characters) exists with full_access
  FLAGPOST_SMTP_URL smtp://user:pass@host:587 or smtps://…:465 (pooled); unset: each email
                    is written as an .eml file under FLAGPOST_OUTBOX_DIR (default ./outbox)
  FLAGPOST_EMAIL_CONCURRENCY, FLAGPOST_EMAIL_LEASE_MS, FLAGPOST_EMAIL_MAX_ATTEMPTS,
  FLAGPOST_EMAIL_RETRY_BASE_MS, FLAGPOST_EMAIL_RETRY_MAX_MS
                    outbox worker: sends at once (10), lease (30000), attempts (8),
                    first retry delay ceiling (5000), largest (1800000)
  FLAGPOST_REQUEST_TIMEOUT_MS, FLAGPOST_HEADERS_TIMEOUT_MS
                    time a client has to send a whole request (60000) and its headers (10000)
  FLAGPOST_WEBHOOK_ALLOW_PRIVATE   true: webhook endpoints may be loopback/private (false)
  FLAGPOST_WEBHOOK_RETRY_SCHEDULE  waits before each webhook retry (5s,5m,30m,2h,5h,10h,10h)
  FLAGPOST_RATE_LIMIT_BURST, FLAGPOST_RATE_LIMIT_PER_SECOND
                    per-key rate limit: burst (2000) and sustained requests per second (1000)
  FLAGPOST_RATE_LIMIT_STORE
                    where the per-key limit is counted: memory (default, each process alone),
                    postgres (shared by every process on FLAGPOST_DB) or redis (shared, in
                    the Redis at FLAGPOST_REDIS_URL, e.g. redis://127.0.0.1:6379)
  FLAGPOST_INSIGHTS_FLUSH_MS
                    how often flag evaluation counts are stored (60000)
  FLAGPOST_INBOUND_SMTP_PORT       port of the SMTP listener for DSN/ARF reports (unset: none);
  FLAGPOST_INBOUND_SMTP_HOST, FLAGPOST_INBOUND_SMTP_MAX_BYTES, FLAGPOST_INBOUND_SMTP_DOMAINS
                    its address (127.0.0.1), largest message (10485760), recipient domains
                    (FLAGPOST_BOUNCE_DOMAIN; unset: any)
  FLAGPOST_INBOUND_SES_TOPIC_ARNS, FLAGPOST_INBOUND_SENDGRID_PUBLIC_KEY,
  FLAGPOST_INBOUND_MAILGUN_SIGNING_KEY, FLAGPOST_INBOUND_POSTMARK_USER/_PASSWORD
                    enable POST /v1/inbound/{ses,sendgrid,mailgun,postmark} (docs/emails.md)
`;

export interface Command {
  name:
    | "serve"
    | "migrate"
    | "keys create"
    | "keys list"
    | "keys revoke"
    | "events purge"
    | "events delete"
    | "experiments results"
    | "flags stale"
    | "help";
  options: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses argv (without node and the script path) into one command. */
export function parseCommand(argv: string[]): Command {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      scopes: { type: "string" },
      name: { type: "string" },
      before: { type: "string" },
      user: { type: "string" },
      metric: { type: "string" },
      control: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      json: { type: "boolean" },
      days: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [first, second, ...rest] = positionals;
  if (values.help || first === undefined || first === "help") return { name: "help", options: values, positionals: [] };
  if (first === "serve" || first === "migrate") {
    if (second !== undefined) throw new UsageError(`"${first}" takes no arguments`);
    return { name: first, options: values, positionals: [] };
  }
  if (first === "keys" && (second === "create" || second === "list" || second === "revoke")) {
    return { name: `keys ${second}`, options: values, positionals: rest };
  }
  if (first === "events" && (second === "purge" || second === "delete")) {
    if (rest.length > 0) throw new UsageError(`"events ${second}" takes options only`);
    return { name: `events ${second}`, options: values, positionals: [] };
  }
  if (first === "experiments" && second === "results") {
    if (rest.length !== 1) throw new UsageError('"experiments results" takes one experiment id (a flag key)');
    return { name: "experiments results", options: values, positionals: rest };
  }
  if (first === "flags" && second === "stale") {
    if (rest.length > 0) throw new UsageError('"flags stale" takes options only');
    return { name: "flags stale", options: values, positionals: [] };
  }
  throw new UsageError(`Unknown command "${positionals.join(" ")}"`);
}
