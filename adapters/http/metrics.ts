import { bearerToken } from "./request-json.js";
import type { Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { hasScope } from "../../src/auth/index.js";
import type { MetricsSnapshot } from "../../src/metrics/index.js";
import { importWithPeers } from "../../src/optional-peer.js";
import { errorResponse } from "./error-body.js";
import { outboxReader, pendingDeliveriesReader } from "./outbox-reading.js";
import { cumulativeBuckets, LATENCY_BUCKETS, type RequestMetrics } from "./request-metrics.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * `GET /metrics` (docs/operations.md): Prometheus text format through prom-client, an optional
 * peer loaded on the first scrape. Every series is computed at scrape time from plain counters
 * (`fp.metrics()` and the request counts), so counting costs an addition and nothing else.
 * A key with `metrics:read` (or `full_access`), or none when `public` (FLAGPOST_METRICS_PUBLIC).
 */

export { RequestMetrics } from "./request-metrics.js";

export const METRICS_PATH = "/metrics";

export interface MetricsOptions {
  /** Serve /metrics without a key (inside a private network only). Default false. */
  public?: boolean;
}

interface Value {
  labels: Record<string, string>;
  value: number;
  metricName?: string;
}
interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  values: () => Value[] | Promise<Value[]>;
}

const byLabel = (label: string, counts: Record<string, number>): Value[] =>
  Object.entries(counts).map(([key, value]) => ({ labels: { [label]: key }, value }));

/** The series; `current()` is the counters' snapshot taken once per scrape, so they agree with each other. */
function families(fp: Flagpost, requests: RequestMetrics, current: () => MetricsSnapshot): Family[] {
  const outbox = outboxReader(fp);
  const pendingDeliveries = pendingDeliveriesReader(fp);
  return [
    {
      name: "flagpost_outbox_emails",
      help: "Queued emails: due (their time has come), scheduled (later), held (their domain is paused). Read from storage at scrape time.",
      type: "gauge",
      values: async () => {
        const reading = await outbox();
        if (!reading) return [];
        return [
          { labels: { state: "due" }, value: reading.depth.due },
          { labels: { state: "scheduled" }, value: reading.depth.scheduled },
          { labels: { state: "held" }, value: reading.depth.held },
        ];
      },
    },
    {
      name: "flagpost_outbox_oldest_due_age_seconds",
      help: "How long the oldest due email has waited past its time; 0 when nothing is due.",
      type: "gauge",
      values: async () => {
        const reading = await outbox();
        if (!reading) return [];
        const oldest = reading.depth.oldestDueAt;
        const age = oldest === undefined ? 0 : Math.max(0, (reading.at - oldest) / 1000);
        return [{ labels: {}, value: age }];
      },
    },
    {
      name: "flagpost_http_requests_total",
      help: "HTTP requests under /v1 by method, route template and status.",
      type: "counter",
      values: () =>
        requests.series.map((s) => ({
          labels: { method: s.method, route: s.route, status: s.status },
          value: s.count,
        })),
    },
    {
      name: "flagpost_http_request_duration_seconds",
      help: "Time to answer HTTP requests under /v1, by method and route template.",
      type: "histogram",
      values: () =>
        requests.series.flatMap((s) => {
          const labels = { method: s.method, route: s.route, status: s.status };
          const buckets = cumulativeBuckets(s);
          return [
            ...LATENCY_BUCKETS.map((le, i) => ({
              labels: { ...labels, le: String(le) },
              value: buckets[i]!,
              metricName: "flagpost_http_request_duration_seconds_bucket",
            })),
            {
              labels: { ...labels, le: "+Inf" },
              value: s.count,
              metricName: "flagpost_http_request_duration_seconds_bucket",
            },
            { labels, value: s.sum, metricName: "flagpost_http_request_duration_seconds_sum" },
            { labels, value: s.count, metricName: "flagpost_http_request_duration_seconds_count" },
          ];
        }),
    },
    {
      name: "flagpost_email_events_total",
      help: "Email status changes stored, by event (sent, delivered, bounced, complained, failed, suppressed, delivery_delayed).",
      type: "counter",
      values: () => byLabel("event", current().emailEvents),
    },
    {
      name: "flagpost_email_bounces_total",
      help: "Bounces stored, by type (Permanent, Transient, Undetermined).",
      type: "counter",
      values: () => byLabel("type", current().bounces),
    },
    {
      name: "flagpost_suppressions_added_total",
      help: "Addresses added to the suppression list.",
      type: "counter",
      values: () => [{ labels: {}, value: current().suppressionsAdded }],
    },
    {
      name: "flagpost_webhook_deliveries_total",
      help: "Webhook delivery attempts stored, by outcome (success, retry, failed).",
      type: "counter",
      values: () => byLabel("outcome", current().webhookDeliveries),
    },
    {
      name: "flagpost_webhook_deliveries_pending",
      help: "Webhook deliveries still to be made (not tried yet, or waiting for a retry). Read from storage at scrape time.",
      type: "gauge",
      values: async () => {
        const pending = await pendingDeliveries();
        return pending === undefined ? [] : [{ labels: {}, value: pending }];
      },
    },
    {
      name: "flagpost_events_accepted_total",
      help: "Events stored.",
      type: "counter",
      values: () => [{ labels: {}, value: current().eventsAccepted }],
    },
    {
      name: "flagpost_events_buffered",
      help: "Events in this process's buffer (events.enqueue), waiting for their batch or being written.",
      type: "gauge",
      values: () => {
        const stats = fp.events.bufferStats();
        return [{ labels: {}, value: stats.waiting + stats.writing }];
      },
    },
    {
      name: "flagpost_flag_evaluations_total",
      help: "Flag evaluations in this process by flag key (past the configured count of keys: __other__).",
      type: "counter",
      values: () => byLabel("flag", current().flagEvaluations),
    },
    {
      name: "flagpost_storage_errors_total",
      help: "Storage calls that failed, by repository.",
      type: "counter",
      values: () => byLabel("repository", current().storageErrors),
    },
  ];
}

/** Answers /metrics; undefined for any other path. */
export function createMetricsEndpoint(
  fp: Flagpost,
  requests: RequestMetrics,
  options: MetricsOptions = {},
): (request: HttpRequest) => Promise<HttpResponse> | undefined {
  let registry: Promise<{ metrics(): Promise<string>; contentType: string }> | undefined;
  let snapshot = fp.metrics();
  const load = () =>
    (registry ??= importWithPeers("GET /metrics", ["prom-client"], () => import("prom-client")).then((prom) => {
      const created = new prom.Registry();
      for (const family of families(fp, requests, () => snapshot))
        created.registerMetric({
          name: family.name,
          help: family.help,
          type: family.type,
          get: async () => ({
            name: family.name,
            help: family.help,
            type: family.type,
            values: await family.values(),
            aggregator: "sum",
          }),
        } as unknown as Parameters<typeof created.registerMetric>[0]);
      return created;
    }));

  async function answer(request: HttpRequest): Promise<HttpResponse> {
    if (!options.public) {
      const token = bearerToken(request.headers.authorization);
      if (token === undefined)
        return errorResponse(
          "data",
          new FlagpostError("missing_api_key", 'Send your API key as "Authorization: Bearer <API_KEY>"'),
        );
      await fp.ready();
      const key = await fp.keys.verify(token);
      if (!key) return errorResponse("data", new FlagpostError("invalid_api_key", "The API key is unknown or revoked"));
      if (!hasScope(key.scopes, "metrics:read"))
        return errorResponse(
          "data",
          new FlagpostError("restricted_api_key", 'This API key lacks the "metrics:read" scope'),
        );
    }
    const created = await load();
    snapshot = fp.metrics();
    const text = await created.metrics();
    return { status: 200, headers: { "content-type": created.contentType }, body: text };
  }

  return (request) => {
    if (request.path !== METRICS_PATH) return undefined;
    if (request.method !== "GET")
      return Promise.resolve(
        errorResponse(
          "data",
          new FlagpostError("method_not_allowed", `${request.method} is not allowed here; use GET`),
          {
            allow: "GET",
          },
        ),
      );
    return answer(request).catch((error: unknown) => errorResponse("data", error));
  };
}
