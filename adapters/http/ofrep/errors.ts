import type { ErrorCode } from "../../../src/errors.js";

/**
 * Errors found before or around an OFREP route's own answer (a body that is not JSON, a refused
 * key, an unexpected failure), for the routes of style "ofrep" (error-body.ts). Where the
 * specification (openapi.yaml) gives the status a body, its shape: `evaluationFailure` `{key,
 * errorCode, errorDetails}` on the single route, `bulkEvaluationFailure` `{errorCode,
 * errorDetails}` on the bulk route (400), `generalErrorResponse` (500). It gives 401, 403 and 429
 * (and the 405, 413, 415 and 503 flagpost may answer) none: those keep flagpost's `{error: {code,
 * message}}`, whose code says which refusal it was.
 */

/** The statuses the spec gives an error body on both routes (404 is the single route's own answer). */
export const OFREP_ERROR_STATUSES: ReadonlySet<number> = new Set([400, 500]);

const SINGLE_PREFIX = "/ofrep/v1/evaluate/flags/";

/**
 * The spec's status for `code`: flagpost's own (docs/api.md), except an unknown or revoked key,
 * which Resend answers 403 and OFREP 401 ("credentials are missing, invalid, or expired").
 */
export function ofrepErrorStatus(code: ErrorCode, status: number): number {
  return code === "invalid_api_key" ? 401 : status;
}

/** The body: PARSE_ERROR for a body that is not JSON, INVALID_CONTEXT for a refused context, else GENERAL. */
export function ofrepErrorBody(code: ErrorCode, message: string, path: string | undefined): Record<string, unknown> {
  const errorCode =
    code === "invalid_json" ? "PARSE_ERROR" : code === "validation_error" ? "INVALID_CONTEXT" : "GENERAL";
  const key = flagKeyOf(path);
  return key === undefined ? { errorCode, errorDetails: message } : { key, errorCode, errorDetails: message };
}

/** The flag key of a single-evaluation path, as the router decodes it; undefined for any other path. */
function flagKeyOf(path: string | undefined): string | undefined {
  if (path === undefined || !path.startsWith(SINGLE_PREFIX)) return undefined;
  const rest = path.slice(SINGLE_PREFIX.length);
  if (rest === "" || rest.includes("/")) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}
