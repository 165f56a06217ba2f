import { createHash } from "node:crypto";
import { FLAG_KEY_PATTERN } from "../../../src/flags/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { HttpRequest, HttpResponse } from "../types.js";
import { loadDashboardFiles } from "./assets.js";
import { DASHBOARD_FILES, type DashboardFile } from "./files.js";
import { OPERATOR_TABLE_FILE, operatorTableScript } from "./operator-table.js";
import { WEBHOOK_EVENT_TYPES_FILE, webhookEventTypesScript } from "./webhook-event-types.js";
import { ifNoneMatchHits } from "../etag.js";

export interface DashboardOptions {
  /** Where the dashboard is served, below the app's mount point. Default "/dashboard". */
  path?: string;
}

export const DEFAULT_DASHBOARD_PATH = "/dashboard";

/**
 * Sent with every dashboard response. The page runs only its own files: no inline script or
 * style, no other origin, no framing, no form submission (forms are handled in script, so a key
 * typed into one can never end up in a URL), and it talks to /v1 on its own origin only.
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

interface Asset {
  type: string;
  body: Uint8Array;
  etag: string;
}

const SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** "/dashboard", "/admin/flags/" → "/admin/flags"; anything that could shadow /v1 is refused. */
export function normalizeDashboardPath(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const segments = trimmed.split("/").slice(1);
  const valid =
    trimmed.startsWith("/") && segments.length > 0 && segments.every((s) => SEGMENT.test(s) && s !== "." && s !== "..");
  if (!valid) {
    throw new FlagpostError(
      "validation_error",
      `dashboard.path must look like "/dashboard" (got ${JSON.stringify(path)})`,
    );
  }
  if (segments[0] === "v1")
    throw new FlagpostError("validation_error", `dashboard.path must not be under /v1 (got ${JSON.stringify(path)})`);
  return trimmed;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Files the server writes from its own tables (their copies on disk are for the browser tests). */
const GENERATED: Partial<Record<string, () => string>> = {
  [OPERATOR_TABLE_FILE]: operatorTableScript,
  [WEBHOOK_EVENT_TYPES_FILE]: webhookEventTypesScript,
};

function buildAssets(depth: number): Map<DashboardFile, Asset> {
  const encoder = new TextEncoder();
  const assets = new Map<DashboardFile, Asset>();
  for (const [name, text] of loadDashboardFiles()) {
    // The page finds /v1 relative to itself, so it works under any mount prefix ("/api/dashboard/"
    // → "../v1"), and checks flag keys with the same pattern the server uses; the operator
    // editor reads the server's own operator table, the webhook form its own event types.
    const generated = GENERATED[name];
    const content =
      name === "index.html"
        ? text
            .replace("__FLAGPOST_API_BASE__", escapeAttribute(`${"../".repeat(depth)}v1`))
            .replace("__FLAGPOST_KEY_PATTERN__", escapeAttribute(FLAG_KEY_PATTERN.source))
        : generated
          ? generated()
          : text;
    const body = encoder.encode(content);
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    assets.set(name, { type: DASHBOARD_FILES[name], body, etag });
  }
  return assets;
}

function plain(status: number, text: string, headers: Record<string, string> = {}): HttpResponse {
  const body = new TextEncoder().encode(text);
  return {
    status,
    headers: {
      ...DASHBOARD_SECURITY_HEADERS,
      "content-type": "text/plain; charset=utf-8",
      "content-length": String(body.byteLength),
      "cache-control": "no-store",
      ...headers,
    },
    body,
  };
}

/** HEAD gets the headers of GET (Content-Length included) and no body. */
function withoutBodyForHead(method: string, response: HttpResponse): HttpResponse {
  if (method !== "HEAD") return response;
  const { body: _omitted, ...rest } = response;
  return rest;
}

/**
 * Serves the dashboard's fixed set of files below `path`, or returns undefined for any other
 * path (also unknown names below `path`, which go on to the app). `{path}` redirects to
 * `{path}/` so relative URLs in the page resolve. The page needs no key: the user pastes one in.
 */
export function createDashboard(options: DashboardOptions = {}): (request: HttpRequest) => HttpResponse | undefined {
  const base = normalizeDashboardPath(options.path ?? DEFAULT_DASHBOARD_PATH);
  const depth = base.split("/").length - 1;
  const lastSegment = base.slice(base.lastIndexOf("/") + 1);
  let assets: Map<DashboardFile, Asset> | undefined;

  return (request) => {
    const { path, method } = request;
    if (path !== base && !path.startsWith(`${base}/`)) return undefined;
    const name = path === base ? undefined : path.slice(base.length + 1) || "index.html";
    if (name !== undefined && !Object.hasOwn(DASHBOARD_FILES, name)) return undefined;
    if (method !== "GET" && method !== "HEAD") return plain(405, "Method not allowed\n", { allow: "GET, HEAD" });
    // A relative Location works whatever prefix the app mounted flagpost under.
    if (name === undefined)
      return withoutBodyForHead(method, plain(308, "Moved permanently\n", { location: `${lastSegment}/` }));

    assets ??= buildAssets(depth);
    const asset = assets.get(name as DashboardFile)!;
    const headers: Record<string, string> = {
      ...DASHBOARD_SECURITY_HEADERS,
      "content-type": asset.type,
      // Revalidate every time (cheap, thanks to the ETag): an upgraded package is seen at once.
      "cache-control": "no-cache",
      etag: asset.etag,
    };
    if (ifNoneMatchHits(request.headers["if-none-match"], asset.etag)) return { status: 304, headers };
    headers["content-length"] = String(asset.body.byteLength);
    return { status: 200, headers, ...(method === "GET" ? { body: asset.body } : {}) };
  };
}
