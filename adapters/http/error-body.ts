import { type ErrorCode, FlagpostError } from "../../src/errors.js";
import { OFREP_ERROR_STATUSES, ofrepErrorBody, ofrepErrorStatus } from "./ofrep/errors.js";
import { STATUS_BY_CODE } from "./status.js";
import type { ErrorStyle, HttpResponse } from "./types.js";

export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Seconds a client should wait after a 503 that set no Retry-After of its own (storage down,
 * not ready): long enough not to hammer a database coming back, short next to an outage.
 */
export const UNAVAILABLE_RETRY_AFTER = "5";

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonTextResponse(status, JSON.stringify(body), headers);
}

/** A response whose JSON body is serialised already. */
export function jsonTextResponse(status: number, json: string, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { "content-type": JSON_TYPE, "cache-control": "no-store", ...headers }, body: json };
}

/**
 * An error as the client sees it. Only FlagpostErrors speak: anything else becomes a bare 500,
 * so no stack, SQL or secret reaches a response body. `path` names the flag in an OFREP body.
 */
export function errorResponse(
  style: ErrorStyle,
  error: unknown,
  headers: Record<string, string> = {},
  path?: string,
): HttpResponse {
  const known = error instanceof FlagpostError;
  const code: ErrorCode = known ? error.code : "internal_server_error";
  const status = style === "ofrep" ? ofrepErrorStatus(code, STATUS_BY_CODE[code]) : STATUS_BY_CODE[code];
  const message =
    known && code !== "internal_server_error" ? error.message : "Something unexpected went wrong; it was logged.";
  if (status === 503 && !("retry-after" in headers)) headers = { ...headers, "retry-after": UNAVAILABLE_RETRY_AFTER };
  if (style === "ofrep" && OFREP_ERROR_STATUSES.has(status))
    return jsonResponse(status, ofrepErrorBody(code, message, path), headers);
  if (style === "resend") return jsonResponse(status, { statusCode: status, name: code, message }, headers);
  const details = known && error.details?.length ? { details: error.details } : {};
  return jsonResponse(status, { error: { code, message, ...details } }, headers);
}

/** The answer to a path outside /v1 when there is no app behind flagpost to pass it to. */
export function notFoundResponse(path: string): HttpResponse {
  return errorResponse("data", new FlagpostError("not_found", `No route for ${path}`));
}
