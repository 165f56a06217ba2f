import type { ErrorCode } from "../../src/errors.js";

/** The one table from error code to HTTP status (docs/api.md, "Errors"). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_json: 400,
  missing_api_key: 401,
  invalid_api_key: 403,
  restricted_api_key: 403,
  missing_signature: 401,
  invalid_signature: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  invalid_idempotent_request: 409,
  concurrent_idempotent_requests: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_error: 422,
  invalid_transition: 422,
  rate_limit_exceeded: 429,
  internal_server_error: 500,
  unavailable: 503,
};
