import type { IdempotencyOptions } from "../../src/emails/index.js";
import type { RouteContext } from "./types.js";

/**
 * The Idempotency-Key of a request, for any route that accepts one (docs/api.md "Idempotency").
 * It is scoped to the API key: two keys' requests never replay each other's answers.
 */
export function idempotencyOf(ctx: RouteContext): IdempotencyOptions {
  const key = ctx.headers["idempotency-key"];
  return key === undefined ? {} : { idempotencyKey: key, idempotencyScope: ctx.apiKey.id };
}
