import { createHash } from "node:crypto";
import { canonicalJson } from "../../../src/idempotency.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { FlagpostError } from "../../../src/errors.js";
import { FlagsVersion } from "./flags-version.js";
import { type OfrepStreamOptions, STREAM_DEFAULTS, StreamLinks } from "./stream-links.js";
import { ifNoneMatchHits } from "../etag.js";
import type { Route } from "../types.js";
import { ofrepAnswer } from "./answer.js";
import { ofrepContext } from "./context.js";

/**
 * The OFREP routes (docs/ofrep.md, open-feature/protocol service/openapi.yaml). Scope
 * `flags:client`, which `flags:read` and `flags:evaluate` keys hold too (src/auth/scopes.ts).
 * Evaluations go through `fp.flags.evaluateCurrent`, as the evaluate route's do, so they come
 * from the in-process snapshot and are counted in the insights. Unless `streams` is false, the
 * bulk answer links to the event stream (event-stream.ts).
 */
export function ofrepRoutes(fp: Flagpost, streams: OfrepStreamOptions | false = {}): Route[] {
  const versions = new FlagsVersion(fp);
  const flagsVersion = () => versions.current();
  const links =
    streams === false ? undefined : new StreamLinks(fp, streams.tokenTtlSeconds ?? STREAM_DEFAULTS.tokenTtlSeconds);

  return [
    {
      method: "POST",
      path: "/ofrep/v1/evaluate/flags/:key",
      fromMemory: true,
      scope: "flags:client",
      style: "ofrep",
      body: true,
      async handle(ctx) {
        const key = ctx.params.key!;
        const parsed = ofrepContext(ctx.body);
        if (!parsed.ok)
          return { status: 400, body: { key, errorCode: "INVALID_CONTEXT", errorDetails: parsed.details } };
        try {
          const result = await fp.flags.evaluateCurrent(key, parsed.context);
          // The rules and variants the answer needs, from the in-process snapshot the result came
          // from; the flag list only when the snapshot does not hold the flag yet (a cold start).
          const flag = fp.flagClient.getFlag(key) ?? (await flagsVersion()).state.flags.find((f) => f.key === key);
          const answer = ofrepAnswer(key, result, flag);
          return { status: "errorCode" in answer ? 400 : 200, body: answer };
        } catch (error) {
          if (error instanceof FlagpostError && error.code === "not_found")
            return {
              status: 404,
              body: { key, errorCode: "FLAG_NOT_FOUND", errorDetails: `No flag has the key ${key}` },
            };
          if (error instanceof FlagpostError && error.code === "validation_error")
            return { status: 400, body: { key, errorCode: "INVALID_CONTEXT", errorDetails: error.message } };
          throw error;
        }
      },
    },
    {
      method: "POST",
      path: "/ofrep/v1/evaluate/flags",
      fromMemory: true,
      scope: "flags:client",
      style: "ofrep",
      body: true,
      async handle(ctx) {
        const parsed = ofrepContext(ctx.body);
        if (!parsed.ok) return { status: 400, body: { errorCode: "INVALID_CONTEXT", errorDetails: parsed.details } };
        const { state, version } = await flagsVersion();
        const link = await links?.entry(ctx.apiKey.id, version, ctx.href);
        // Strong: the same flags and the same context give the same bytes. The context's keys are
        // sorted, so a client that rebuilds its context in another order keeps its 304s. With
        // streams, the bytes hold the key's stream link too, which changes with the key and the window.
        const context = canonicalJson(parsed.context);
        const hash = createHash("sha256").update(version).update(context);
        if (link) hash.update(link.endpoint.requestUri);
        const etag = `"${hash.digest("base64url").slice(0, 32)}"`;
        const headers = { etag, "cache-control": "no-cache" };
        // The 304 is answered before any evaluation: it costs a hash of the context (and the link) only.
        if (ifNoneMatchHits(ctx.headers["if-none-match"], etag)) return { status: 304, headers };
        const flags = [];
        for (const flag of state.flags) {
          const result = await fp.flags.evaluateCurrent(flag.key, parsed.context);
          flags.push(ofrepAnswer(flag.key, result, flag));
        }
        return { status: 200, body: link ? { flags, eventStreams: [link] } : { flags }, headers };
      },
    },
  ];
}
