import { FlagpostError } from "../../src/errors.js";
import { DEFAULT_DASHBOARD_PATH, type DashboardOptions, normalizeDashboardPath } from "./dashboard/serve.js";
import { errorResponse, jsonResponse, notFoundResponse } from "./error-body.js";
import type { HttpResponse } from "./types.js";

/** The paths Resend's API serves at its root; flagpost serves them under /v1. */
const RESEND_RESOURCES = new Set([
  "emails",
  "domains",
  "webhooks",
  "suppressions",
  "audiences",
  "contacts",
  "broadcasts",
  "api-keys",
]);

// A Host header is echoed only when it looks like one; anything else is left out of the message.
const PLAIN_HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

interface Unmatched {
  method: string;
  /** Below the mount point. */
  path: string;
  headers: Readonly<Record<string, string | undefined>>;
}

interface Where {
  /** "http://host:port" as the client reached it, when known; else the Host header gives it. */
  origin?: string;
  basePath?: string;
  dashboard?: DashboardOptions | false;
}

/**
 * The answer to a path outside /v1 and the dashboard when no app stands behind flagpost (the
 * standalone server, the fetch handler). Two mistakes a newcomer makes get an answer that says
 * what to do: the Resend SDK pointed at the host (Resend's own base URL has no path) gets its
 * error shape with the baseUrl to set, and `GET /` points to the dashboard and the API.
 */
export function unmatchedResponse(request: Unmatched, where: Where = {}): HttpResponse {
  const base = where.basePath ?? "";
  const segment = request.path.split("/")[1] ?? "";
  if (RESEND_RESOURCES.has(segment)) {
    const host = request.headers.host;
    const origin = where.origin ?? (host && PLAIN_HOST.test(host) ? `http://${host}` : undefined);
    const example = origin ? ` (here: ${origin}${base}/v1)` : "";
    const message =
      `No route for ${request.method} ${request.path}: flagpost serves the Resend API under /v1. ` +
      `Set the Resend SDK's baseUrl (or RESEND_BASE_URL) to this server's URL followed by /v1${example}.`;
    return errorResponse("resend", new FlagpostError("not_found", message));
  }
  if (request.path === "/" && (request.method === "GET" || request.method === "HEAD")) return home(request, where);
  return notFoundResponse(base + request.path);
}

function home(request: Unmatched, where: Where): HttpResponse {
  const base = where.basePath ?? "";
  const dashboard =
    where.dashboard === false
      ? undefined
      : base + normalizeDashboardPath(where.dashboard?.path ?? DEFAULT_DASHBOARD_PATH);
  const api = `${base}/v1`;
  if (!(request.headers.accept ?? "").includes("text/html"))
    return jsonResponse(200, { name: "flagpost", api, ...(dashboard ? { dashboard } : {}) });
  const link = dashboard
    ? `<p>The dashboard is at <a href="${escapeHtml(dashboard)}">${escapeHtml(dashboard)}</a>.</p>`
    : "<p>This server has no dashboard.</p>";
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>flagpost</title>' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>' +
    `<h1>flagpost</h1>${link}<p>The API is under <code>${escapeHtml(api)}</code> (docs/api.md).</p></body></html>`;
  return {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'",
      "x-content-type-options": "nosniff",
    },
    body,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
