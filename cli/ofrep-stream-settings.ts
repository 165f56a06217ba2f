import type { HttpOptions } from "../adapters/http/index.js";
import { UsageError } from "./args.js";

/**
 * `flagpost serve`'s OFREP event streams from the environment (docs/ofrep.md, "Event streams"):
 * - FLAGPOST_OFREP_STREAMS: `on` (default) or `off` — bulk answers carry no `eventStreams` and
 *   `GET /ofrep/v1/stream` is not served (providers poll), for a proxy that buffers SSE or several
 *   processes on SQLite/MariaDB where a refetch may reach one that has not reloaded yet;
 * - FLAGPOST_OFREP_STREAM_TOKEN_TTL: the longest a stream link's token lives, in seconds (3600).
 *   From 60 (a link has at least half of it left: 30 s to connect) to 86400 (a leaked link names
 *   its key for a day at most; revoking the key ends it sooner).
 */

const TOKEN_TTL_RANGE = { min: 60, max: 86_400 } as const;

export function ofrepStreamsFrom(env: NodeJS.ProcessEnv): NonNullable<HttpOptions["ofrepStreams"]> {
  const enabled = env.FLAGPOST_OFREP_STREAMS?.trim().toLowerCase() || "on";
  if (enabled !== "on" && enabled !== "off")
    throw new UsageError(`FLAGPOST_OFREP_STREAMS must be on or off, not "${env.FLAGPOST_OFREP_STREAMS}"`);
  if (enabled === "off") return false;
  const ttl = env.FLAGPOST_OFREP_STREAM_TOKEN_TTL?.trim();
  if (!ttl) return {};
  const seconds = Number(ttl);
  if (!Number.isInteger(seconds) || seconds < TOKEN_TTL_RANGE.min || seconds > TOKEN_TTL_RANGE.max)
    throw new UsageError(
      `FLAGPOST_OFREP_STREAM_TOKEN_TTL must be a whole number of seconds from ${TOKEN_TTL_RANGE.min} to ${TOKEN_TTL_RANGE.max}, not "${ttl}"`,
    );
  return { tokenTtlSeconds: seconds };
}
