import type { Flagpost } from "../../src/flagpost.js";
import type { Logger } from "../../src/ports/logger.js";
import { readinessChecker } from "../../src/readiness.js";
import { jsonResponse, UNAVAILABLE_RETRY_AFTER } from "./error-body.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * `GET /health` and `GET /ready` (docs/http.md), outside /v1 and without a key, at the
 * mount point like every flagpost path:
 *
 * - `/health`: 200 while the process runs and answers. Nothing else is looked at: a liveness
 *   probe that failed on a storage outage would have the orchestrator restart a process that is
 *   doing the right thing (waiting, answering 503, serving flags from memory).
 * - `/ready`: 200 when storage answers within 2 s and every migration has run, else 503 with the
 *   failing check's name (`storage`, `migrations`, or `shutdown` once the server is shutting down).
 *   The storage's own error goes to the log when readiness changes, never into the body.
 */

export const HEALTH_PATH = "/health";
export const READY_PATH = "/ready";

export interface ProbeOptions {
  /** While it returns true, `/ready` answers 503 `{checks: {shutdown}}` (flagpost serve, after SIGTERM). */
  shuttingDown?: () => boolean;
}

/** Answers /health and /ready; undefined for any other path. */
export function createProbes(
  fp: Flagpost,
  logger: Logger,
  options: ProbeOptions = {},
): (request: HttpRequest) => Promise<HttpResponse> | undefined {
  const check = readinessChecker(fp.storage);
  let wasReady: boolean | undefined;

  async function ready(): Promise<HttpResponse> {
    if (options.shuttingDown?.()) return answer(503, "unavailable", { shutdown: "the server is shutting down" });
    const report = await check();
    if (report.ready !== wasReady) {
      if (report.ready) logger.info("ready", { checks: report.checks });
      else logger.warn("not ready", { checks: report.checks, ...(report.problem && { problem: report.problem }) });
      wasReady = report.ready;
    }
    return answer(report.ready ? 200 : 503, report.ready ? "ok" : "unavailable", report.checks);
  }

  return (request) => {
    if (request.path !== HEALTH_PATH && request.path !== READY_PATH) return undefined;
    if (request.method !== "GET" && request.method !== "HEAD")
      return Promise.resolve(
        jsonResponse(
          405,
          { error: { code: "method_not_allowed", message: `${request.method} is not allowed here; use GET, HEAD` } },
          { allow: "GET, HEAD" },
        ),
      );
    const response = request.path === HEALTH_PATH ? Promise.resolve(answer(200, "ok")) : ready();
    return request.method === "HEAD" ? response.then(({ body: _body, ...head }) => head) : response;
  };
}

function answer(status: number, state: string, checks?: Record<string, string>): HttpResponse {
  return jsonResponse(
    status,
    checks === undefined ? { status: state } : { status: state, checks },
    status === 503 ? { "retry-after": UNAVAILABLE_RETRY_AFTER } : {},
  );
}
