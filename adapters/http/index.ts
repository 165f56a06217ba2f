export {
  createHandler,
  DEFAULT_BODY_LIMIT,
  DEFAULT_REQUEST_LOG_SAMPLE,
  type Handler,
  type HttpOptions,
  REQUEST_LOGGING,
  type RequestLogging,
} from "./handler.js";
export { toNodeHandler, fromNodeRequest, writeNodeResponse, type FromNodeOptions } from "./node.js";
export { toExpress, type ExpressHandler, type ExpressErrorHandler, type ExpressRequestLike } from "./express.js";
export {
  toFastify,
  type FastifyPlugin,
  type FastifyInstanceLike,
  type FastifyRequestLike,
  type FastifyReplyLike,
} from "./fastify.js";
export { toFetchHandler, type FetchHandlerOptions } from "./fetch.js";
export { toHono, type HonoMiddleware, type HonoContextLike, type HonoOptions } from "./hono.js";
export { DEFAULT_DASHBOARD_PATH, type DashboardOptions } from "./dashboard/serve.js";
export { STATUS_BY_CODE } from "./status.js";
export type { RateLimitOptions } from "./rate-limit.js";
export type { RateLimitStore, SharedLimit, SharedTake } from "../../src/ports/rate-limit-store.js";
export type { HttpRequest, HttpResponse, RequestBody, Route, RouteContext, RouteResult, ErrorStyle } from "./types.js";
