import { PROVIDER_INTAKES } from "../adapters/inbound/providers/index.js";

/**
 * The "Environment:" part of `flagpost --help` (USAGE in args.ts): every setting of `flagpost
 * serve`, and FLAGPOST_DB, which every command reads, each with its default. Names start at column
 * 2 and their text at column 20. README's settings table names the same variables
 * (test/docs/readme-settings.test.ts).
 */
/**
 * The provider webhooks' settings, from the intakes' own list (PROVIDER_INTAKES), so a new
 * provider appears here without an edit: the names wrapped at 80 columns, then what they enable.
 */
function providerSettingsHelp(): string {
  const lines = [" "];
  const names = PROVIDER_INTAKES.flatMap((intake) => intake.settings);
  names.forEach((name, i) => {
    const word = ` ${name}${i < names.length - 1 ? "," : ""}`;
    if (lines.at(-1)!.length + word.length > 80) lines.push(" ");
    lines[lines.length - 1] += word;
  });
  const paths = PROVIDER_INTAKES.map((intake) => intake.name).join(",");
  return `${lines.join("\n")}\n${" ".repeat(20)}enable POST /v1/inbound/{${paths}} (docs/emails.md)`;
}

export const ENVIRONMENT_HELP = `  FLAGPOST_DB       ./flagpost.db (default), :memory:, a file path, postgres://…, mysql://…
  PORT              port to listen on (default 3000)
  HOST              address to listen on (default 127.0.0.1; 0.0.0.0 in a container)
  FLAGPOST_API_KEY  make sure this exact key (16+ characters) exists with full_access
  FLAGPOST_SMTP_URL smtp://user:pass@host:587 or smtps://…:465 (pooled); unset: each email
                    is written as an .eml file under FLAGPOST_OUTBOX_DIR (default ./outbox)
  FLAGPOST_EMAIL_CONCURRENCY, FLAGPOST_EMAIL_LEASE_MS, FLAGPOST_EMAIL_MAX_ATTEMPTS,
  FLAGPOST_EMAIL_RETRY_BASE_MS, FLAGPOST_EMAIL_RETRY_MAX_MS
                    outbox worker: sends at once (10), lease (30000), attempts (8),
                    first retry delay ceiling (5000), largest (1800000)
  FLAGPOST_DKIM_SIGNING_THREADS
                    worker threads that DKIM-sign at once (cores - 1); 0: none, the event
                    loop hashes and libuv's pool signs (cheaper on one core)
  FLAGPOST_REQUEST_TIMEOUT_MS, FLAGPOST_HEADERS_TIMEOUT_MS
                    time a client has to send a whole request (60000) and its headers (10000)
  FLAGPOST_DB_CONNECT_TIMEOUT_MS, FLAGPOST_DB_STATEMENT_TIMEOUT_MS
                    PostgreSQL/MySQL: longest wait for a connection (5000) and for one
                    statement (10000); past them the request gets 503 + Retry-After
  FLAGPOST_SHUTDOWN_DELAY_MS
                    after SIGTERM, /ready answers 503 this long before the server stops
                    accepting (0)
  FLAGPOST_BODY_BUDGET_BYTES
                    request bodies held in memory at once (100663296, 96 MiB); past it a
                    request gets 503 with Retry-After
  FLAGPOST_BOUNCE_DOMAIN
                    a domain whose mail reaches this server (unset: none): every email is sent
                    with the envelope sender bounces+<email id>-<tag>@<domain> and a DSN request, so
                    bounces name their email (docs/emails.md)
  FLAGPOST_WEBHOOK_ALLOW_PRIVATE   true: webhook endpoints may be loopback/private (false)
  FLAGPOST_WEBHOOK_RETRY_SCHEDULE  waits before each webhook retry (5s,5m,30m,2h,5h,10h,10h)
  FLAGPOST_METRICS_PUBLIC          true: GET /metrics without a key (false: metrics:read)
  FLAGPOST_RATE_LIMIT on (default) or off: no rate limit at all, per key or per address
                    (only behind a gateway that limits)
  FLAGPOST_RATE_LIMIT_BURST, FLAGPOST_RATE_LIMIT_PER_SECOND
                    per-key rate limit: burst (2000) and sustained requests per second (1000)
  FLAGPOST_RATE_LIMIT_STORE
                    where the per-key limit is counted: memory (default, each process alone),
                    postgres (shared by every process on FLAGPOST_DB) or redis (shared, in
                    the Redis at FLAGPOST_REDIS_URL, e.g. redis://127.0.0.1:6379)
  FLAGPOST_CORS_ORIGINS
                    origins allowed to call /ofrep/ from a browser, comma-separated (unset: none)
  FLAGPOST_OFREP_STREAMS
                    on (default): OFREP bulk answers link an event stream; off: they do not,
                    /ofrep/v1/stream is not served and providers poll (turn off behind a
                    proxy that buffers SSE, or with several processes on SQLite or MariaDB)
  FLAGPOST_OFREP_STREAM_TOKEN_TTL
                    longest life of an OFREP stream link, in seconds, 60 to 86400 (3600)
  FLAGPOST_LOG_REQUESTS
                    request lines on stdout: sampled (default: every 5xx and one in
                    FLAGPOST_LOG_SAMPLE of the rest, default 100), all, or off
  FLAGPOST_INSIGHTS_FLUSH_MS
                    how often flag evaluation counts are stored (60000)
  FLAGPOST_INBOUND_SMTP_PORT       port of the SMTP listener for DSN/ARF reports (unset: none);
  FLAGPOST_INBOUND_SMTP_HOST, FLAGPOST_INBOUND_SMTP_MAX_BYTES, FLAGPOST_INBOUND_SMTP_DOMAINS
                    its address (127.0.0.1), largest message (10485760), recipient domains
                    (FLAGPOST_BOUNCE_DOMAIN; unset: any)
${providerSettingsHelp()}
  FLAGPOST_SOFT_BOUNCE_SUPPRESSION
                    count/days, e.g. 3/7: suppress an address after that many soft bounces
                    within that many days (unset: soft bounces never suppress)
  FLAGPOST_SECRET_KEY
                    secret, 16+ characters, for VERP tags, unsubscribe links and OFREP
                    stream links, and sealing DKIM keys (unset: generated once and kept in
                    the database, so shared by every process on it and across restarts; DKIM
                    keys stored unsealed; with FLAGPOST_DB=:memory: a new secret at each
                    start, so links made before a restart are refused)
  FLAGPOST_PUBLIC_URL
                    this server's public https URL (with any mount path): the base of the
                    one-click unsubscribe links of unsubscribe: true (unset: such sends refused)
`;
