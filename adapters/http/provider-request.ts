import type { ByteBudget } from "../../src/jobs/index.js";
import type { Logger } from "../../src/ports/logger.js";
import { FlagpostError } from "../../src/errors.js";
import { BODY_RETRY_AFTER, budgetExceeded, bytesToHold } from "./body-budget.js";
import { errorResponse, jsonResponse } from "./error-body.js";
import type { RateLimiter } from "./rate-limit.js";
import { failedRequestResponse } from "./route-run.js";
import type { HttpRequest, HttpResponse, ProviderRoute } from "./types.js";

export interface ProviderRequestContext {
  limiter: RateLimiter | undefined;
  budget: ByteBudget | undefined;
  logger: Logger;
}

/**
 * A request to a provider route (`/v1/inbound/{provider}`), which carries no flagpost key: the
 * route's own bucket is charged (the key limits, shared by every sender of that provider), the
 * raw body is read within the route's limit and the body budget, and the route authenticates it.
 * A body some middleware already parsed (`express.json()` in front of flagpost) has lost the
 * bytes its signature covers, so it cannot be accepted.
 */
export async function respondToProvider(
  route: ProviderRoute,
  params: Readonly<Record<string, string>>,
  request: HttpRequest,
  rateHeaders: Record<string, string>,
  context: ProviderRequestContext,
): Promise<HttpResponse> {
  const decision = context.limiter?.take(`inbound ${route.path}`, rateHeaders);
  if (decision && !decision.allowed)
    return errorResponse(
      route.style,
      new FlagpostError("rate_limit_exceeded", "Too many requests; retry after the time in Retry-After"),
      rateHeaders,
    );
  let held = 0;
  if (context.budget && request.body.kind === "stream") {
    const bytes = bytesToHold(request.headers["content-length"], route.bodyLimit);
    if (!context.budget.tryReserve(bytes))
      return errorResponse(route.style, budgetExceeded(), { ...rateHeaders, "retry-after": BODY_RETRY_AFTER });
    held = bytes;
  }
  try {
    if (request.body.kind === "parsed")
      throw new FlagpostError(
        "invalid_signature",
        "The body was parsed before flagpost read it, so its signature cannot be checked: mount flagpost before body parsers such as express.json()",
      );
    const body = request.body.kind === "none" ? new Uint8Array(0) : await request.body.read(route.bodyLimit);
    const result = await route.receive({ headers: request.headers, body, params });
    return jsonResponse(result.status, result.body, rateHeaders);
  } catch (error) {
    return failedRequestResponse(error, request, route.style, rateHeaders, context.logger);
  } finally {
    context.budget?.release(held);
  }
}
