/**
 * One error type for the whole library. `code` is one of docs/api.md's error codes; the HTTP
 * adapter maps each code to a status in a single table, so the core never speaks HTTP.
 */
export const ERROR_CODES = {
  invalid_json: "The request body is not valid JSON.",
  unsupported_media_type: "The request has a body whose Content-Type is not application/json.",
  payload_too_large: "The request body is larger than the route allows.",
  validation_error: "A field is missing, has the wrong type or is out of range.",
  not_found: "The resource does not exist.",
  conflict: "A resource with that key already exists.",
  invalid_idempotent_request: "The Idempotency-Key was already used with a different request.",
  concurrent_idempotent_requests: "A request with the same Idempotency-Key is still being processed.",
  invalid_transition: "The email's current status does not allow that event.",
  rate_limit_exceeded: "Too many requests for this API key.",
  method_not_allowed: "The path exists but does not accept that method.",
  missing_api_key: "No `Authorization: Bearer <API_KEY>` header.",
  invalid_api_key: "The API key is unknown or revoked.",
  restricted_api_key: "The API key lacks the scope this operation needs.",
  missing_signature: "A provider webhook came without its signature or credentials.",
  invalid_signature: "A provider webhook's signature or credentials do not verify.",
  unavailable: "A dependency (storage, transport) did not answer.",
  internal_server_error: "Something unexpected went wrong.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One broken rule: `path` is the dotted field path (`rules.0.percentage`, `events.3.userId`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface FlagpostErrorOptions {
  details?: ErrorDetail[];
  cause?: unknown;
}

export class FlagpostError extends Error {
  override readonly name = "FlagpostError";
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string = ERROR_CODES[code], options: FlagpostErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}

export function isFlagpostError(error: unknown, code?: ErrorCode): error is FlagpostError {
  return error instanceof FlagpostError && (code === undefined || error.code === code);
}

/** The one `not_found` message shape: `Flag "new-checkout" was not found`. */
export function notFound(kind: string, id: string): FlagpostError {
  return new FlagpostError("not_found", `${kind} "${id}" was not found`);
}
