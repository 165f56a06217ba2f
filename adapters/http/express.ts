import type { IncomingMessage, ServerResponse } from "node:http";
import { type ErrorCode, FlagpostError } from "../../src/errors.js";
import type { Flagpost } from "../../src/flagpost.js";
import { createHandler, type HttpOptions } from "./handler.js";
import { fromNodeRequest, writeNodeResponse } from "./node.js";
import { bytesBody, failedBody, hasBody, nodeStreamBody } from "./read-body.js";
import type { RequestBody } from "./types.js";

/** The subset of Express's Request this middleware reads (typed here so express stays an optional peer). */
export interface ExpressRequestLike extends IncomingMessage {
  /** The path the router matched before this middleware ("/api" for `app.use("/api", …)`). */
  baseUrl?: string;
  /** What a body parser left behind. */
  body?: unknown;
  /** Set by body-parser 1.x once it read the stream (2.x leaves the stream ended instead). */
  _body?: boolean;
}

type Next = (error?: unknown) => void;
export type ExpressHandler = (req: ExpressRequestLike, res: ServerResponse, next: Next) => void;
export type ExpressErrorHandler = (error: unknown, req: ExpressRequestLike, res: ServerResponse, next: Next) => void;

/**
 * What an earlier middleware (`express.json()`, `text()`, `raw()`, `urlencoded()`) left of the
 * body. When nothing read it, flagpost reads the stream itself with its own limit.
 */
function expressBody(req: ExpressRequestLike): RequestBody {
  const consumed = req._body === true || req.readableEnded;
  if (!consumed) return nodeStreamBody(req, req.headers);
  const value = req.body;
  if (!hasBody(req.headers) || value === undefined) return { kind: "none" };
  if (typeof value === "string") return bytesBody(() => Buffer.from(value, "utf8"));
  if (value instanceof Uint8Array) return bytesBody(() => value);
  // Parsed by a parser: the handler still checks that the Content-Type was JSON.
  return { kind: "parsed", value };
}

/** body-parser's error types (http-errors with `type`), as the error a client should read. */
const BODY_PARSER_ERRORS: Record<string, ErrorCode> = {
  "entity.parse.failed": "invalid_json",
  "request.size.invalid": "invalid_json",
  "request.aborted": "invalid_json",
  "entity.too.large": "payload_too_large",
  "charset.unsupported": "unsupported_media_type",
  "encoding.unsupported": "unsupported_media_type",
};

const BODY_PARSER_MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_json: "The request body is not valid JSON",
  payload_too_large: "The request body is larger than the body parser's limit",
  unsupported_media_type: 'Send the body as UTF-8 JSON with "Content-Type: application/json"',
};

function bodyParserError(error: unknown): FlagpostError | undefined {
  const type = (error as { type?: unknown } | null)?.type;
  const code = typeof type === "string" ? BODY_PARSER_ERRORS[type] : undefined;
  return code && new FlagpostError(code, BODY_PARSER_MESSAGES[code], { cause: error });
}

/**
 * Express middleware, as the pair `app.use` takes: `app.use(toExpress(fp))` or
 * `app.use("/api", toExpress(fp))`. The first serves /v1 and passes every other path to `next()`;
 * the second answers errors that an earlier body parser raised on a /v1 request (bad JSON, too
 * large) in docs/api.md's shapes, after the key check, instead of Express's HTML error page.
 */
export function toExpress(fp: Flagpost, options?: HttpOptions): [ExpressHandler, ExpressErrorHandler] {
  const handle = createHandler(fp, options);
  const serve = (req: ExpressRequestLike, res: ServerResponse, body: RequestBody, pass: () => void, next: Next) => {
    handle(fromNodeRequest(req, { body, basePath: req.baseUrl ?? "" })).then((response) => {
      if (response) writeNodeResponse(res, response);
      else pass();
    }, next);
  };
  const handler: ExpressHandler = (req, res, next) => serve(req, res, expressBody(req), () => next(), next);
  const errorHandler: ExpressErrorHandler = (error, req, res, next) => {
    const failure = bodyParserError(error);
    if (!failure || res.headersSent) return next(error);
    // body-parser keeps the text it could not parse. In its default strict mode that includes
    // valid JSON that is not an object or array ("7", "null"): flagpost parses it again itself,
    // so such a body gets the same 422 as without express.json(), and bad JSON the same 400.
    const text = (error as { body?: unknown }).body;
    const body =
      failure.code === "invalid_json" && typeof text === "string"
        ? bytesBody(() => Buffer.from(text, "utf8"))
        : failedBody(failure);
    serve(req, res, body, () => next(error), next);
  };
  return [handler, errorHandler];
}
