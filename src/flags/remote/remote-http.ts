import { type ErrorCode, FlagpostError } from "../../errors.js";
import { errorFields } from "../../ports/logger.js";

/** What the remote client's requests (the snapshot poll and the stream) share about HTTP answers. */

export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

async function errorBody(response: Response): Promise<{ code?: string; message?: string }> {
  try {
    return ((await response.json()) as { error?: { code?: string; message?: string } }).error ?? {};
  } catch {
    return {};
  }
}

/** The error a non-2xx answer stands for: the server's FlagpostError for 401/403 (a refused key), else HttpStatusError. */
export async function statusError(response: Response, what: string): Promise<Error> {
  const { code, message } = await errorBody(response);
  if (response.status === 401 || response.status === 403) {
    return new FlagpostError(
      (code as ErrorCode | undefined) ?? "invalid_api_key",
      message ?? `the server answered ${response.status}`,
    );
  }
  return new HttpStatusError(
    response.status,
    `${what} answered ${response.status}${message ? `: ${message}` : ""}`,
    retryAfterMs(response.headers.get("retry-after")),
  );
}

/** Whether asking again with the same key is pointless. */
export function isKeyRefused(error: unknown): error is FlagpostError {
  return (
    error instanceof FlagpostError &&
    (error.code === "invalid_api_key" || error.code === "missing_api_key" || error.code === "restricted_api_key")
  );
}

/** fetch's "fetch failed" with the reason it wraps ("connect ECONNREFUSED 127.0.0.1:3000"). */
export function describeFailure(error: unknown): string {
  const own = String(errorFields(error).message ?? error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? `${own}: ${String(errorFields(cause).message)}` : own;
}
