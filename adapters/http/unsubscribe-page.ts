import { z } from "zod";
import { errorFields } from "../../src/ports/logger.js";
import type { Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { errorResponse } from "./error-body.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * flagpost's own one-click unsubscribe link (RFC 8058; docs/emails.md, "One-click unsubscribe"):
 * `/v1/unsubscribe/{token}`, public on purpose — whoever holds the link may use it, and the
 * token (an HMAC under the server's secret) is its only credential, so it takes no API key.
 *
 * - GET (and HEAD) shows a small confirmation page with a POST form and changes nothing: mail
 *   scanners and link previews follow links, and must not unsubscribe anyone.
 * - POST with the body `List-Unsubscribe=One-Click` (form-urlencoded or multipart, what Gmail
 *   and Yahoo send, and what the page's form sends) suppresses the address; a second POST
 *   answers the same and changes nothing.
 * - A malformed, forged or unknown token answers one and the same 404 page.
 */

export const UNSUBSCRIBE_PREFIX = "/v1/unsubscribe/";
/** A one-click body is 26 bytes; multipart framing adds a few hundred. */
const BODY_LIMIT = 16 * 1024;
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];
const oneClick = z.looseObject({ "List-Unsubscribe": z.literal("One-Click") });

/** No script, no other origin; the form posts only to this page; the token goes to no referrer. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex",
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function page(status: number, title: string, body: string, extra: Record<string, string> = {}): HttpResponse {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>` +
    `<body><main><h1>${title}</h1>${body}</main></body></html>`;
  return { status, headers: { ...PAGE_HEADERS, ...extra }, body: html };
}

const notValid = () =>
  page(404, "Link not valid", "<p>This unsubscribe link is not valid. Check that it was copied whole.</p>");

/** The form fields of a POST body, or undefined when it is not a form. */
async function formOf(request: HttpRequest): Promise<Record<string, unknown> | undefined> {
  if (request.body.kind === "parsed")
    return typeof request.body.value === "object" && request.body.value !== null
      ? (request.body.value as Record<string, unknown>)
      : undefined;
  const type = request.headers["content-type"] ?? "";
  if (request.body.kind === "none" || !FORM_TYPES.some((t) => type.toLowerCase().startsWith(t))) return undefined;
  const bytes = await request.body.read(BODY_LIMIT);
  try {
    // The platform's own form parser, for both encodings.
    const form = await new Response(bytes, { headers: { "content-type": type } }).formData();
    return Object.fromEntries([...form.entries()].map(([name, value]) => [name, String(value)]));
  } catch {
    return undefined;
  }
}

async function unsubscribe(fp: Flagpost, token: string, request: HttpRequest): Promise<HttpResponse> {
  await fp.ready();
  if (request.method === "GET" || request.method === "HEAD") {
    const address = await fp.suppressions.unsubscribeTarget(token);
    if (address === undefined) return notValid();
    const form =
      `<p>Stop mail to <strong>${escapeHtml(address)}</strong>?</p>` +
      `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
      `<button type="submit">Unsubscribe</button></form>`;
    const shown = page(200, "Unsubscribe", form);
    return request.method === "HEAD" ? { status: shown.status, headers: shown.headers } : shown;
  }
  if (request.method !== "POST")
    return errorResponse(
      "data",
      new FlagpostError("method_not_allowed", `${request.method} is not allowed here; use GET, POST`),
      { allow: "GET, HEAD, POST" },
    );
  const form = await formOf(request);
  if (form === undefined || !oneClick.safeParse(form).success)
    return page(
      400,
      "Not unsubscribed",
      "<p>A one-click unsubscribe is a form POST of <code>List-Unsubscribe=One-Click</code> (RFC 8058).</p>",
    );
  const done = await fp.suppressions.unsubscribe(token);
  if (done === undefined) return notValid();
  return page(200, "Unsubscribed", `<p><strong>${escapeHtml(done.email)}</strong> will get no more mail from us.</p>`);
}

/** Answers `/v1/unsubscribe/{token}`; undefined for any other path. */
export function createUnsubscribePage(fp: Flagpost): (request: HttpRequest) => Promise<HttpResponse> | undefined {
  return (request) => {
    if (!request.path.startsWith(UNSUBSCRIBE_PREFIX)) return undefined;
    const token = request.path.slice(UNSUBSCRIBE_PREFIX.length);
    if (token.includes("/")) return undefined;
    return unsubscribe(fp, token, request).catch((error: unknown) => {
      if (error instanceof FlagpostError && error.code === "payload_too_large")
        return errorResponse("data", error, { connection: "close" });
      if (!(error instanceof FlagpostError)) fp.logger.error("unsubscribe failed", errorFields(error));
      return errorResponse("data", error);
    });
  };
}
