import { createHash } from "node:crypto";
import { type Flag, flagJson } from "../../../src/flags/index.js";
import type { FlagSnapshotBody } from "../../../src/flags/client/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { type Coding, EncodedBody, negotiateCoding } from "../compression.js";
import { JSON_TYPE } from "../error-body.js";
import { ifNoneMatchHits } from "../etag.js";
import { refuseQuery } from "../query.js";
import type { Route } from "../types.js";

/**
 * `GET /v1/flags/_snapshot`: every flag with its rules in one body, for clients that evaluate
 * locally (createRemoteFlagClient, other SDKs). `_snapshot` cannot be a flag key (keys start with
 * a letter or digit), so the path never shadows `GET /v1/flags/{key}`. Scope `flags:read`: the
 * body holds every rule, user lists included, which a `flags:evaluate` key (the one a browser
 * holds) must not see. Polled with If-None-Match; the ETag is a hash of the content, so it is
 * the same on every server sharing the storage and survives restarts. See docs/flags.md.
 *
 * Served from memory: the state is `fp.flagStream`'s, kept current by this process's writes and
 * by the flag sync (LISTEN/NOTIFY or the revision poll), so neither a 200 nor a 304 reads
 * storage. The body is encoded once per revision, and compressed (brotli or gzip, when the
 * client asks) once per revision and coding.
 */

export const FLAG_SNAPSHOT_PATH = "/v1/flags/_snapshot";

interface Snapshot extends FlagSnapshotBody {
  revision: number;
  etag: string;
}

/** The route's body and ETag for `flags` (sorted by key) at `revision`; the stream's snapshot event too. */
export function buildSnapshot(revision: number, flags: readonly Flag[]): Snapshot {
  const wire = flags.map(flagJson);
  const version = snapshotVersion(JSON.stringify(wire));
  return { revision, etag: `"${version}"`, data: { version, flags: wire } };
}

function snapshotVersion(flagsJson: string): string {
  return createHash("sha256").update(flagsJson).digest("base64url").slice(0, 27);
}

interface Served {
  revision: number;
  version: string;
  body: EncodedBody;
}

/** The ETag of each representation: a compressed body is other bytes, so it gets a tag of its own. */
function etagOf(version: string, coding: Coding | undefined): string {
  return coding === undefined ? `"${version}"` : `"${version}-${coding}"`;
}

/** Whether the client holds the current version in any coding. */
function clientIsCurrent(header: string | undefined, version: string): boolean {
  if (header === undefined) return false;
  return (
    ifNoneMatchHits(header, etagOf(version, undefined)) ||
    ifNoneMatchHits(header, etagOf(version, "br")) ||
    ifNoneMatchHits(header, etagOf(version, "gzip"))
  );
}

export function flagSnapshotRoutes(fp: Flagpost): Route[] {
  let served: Served | undefined;

  async function current(): Promise<Served> {
    const state = await fp.flagStream.state();
    if (served?.revision !== state.revision) {
      const flagsJson = JSON.stringify(state.flags.map(flagJson));
      const version = snapshotVersion(flagsJson);
      // Exactly JSON.stringify({data: {version, flags}}), without encoding the flags twice.
      const json = `{"data":{"version":${JSON.stringify(version)},"flags":${flagsJson}}}`;
      served = { revision: state.revision, version, body: new EncodedBody(Buffer.from(json, "utf8")) };
    }
    return served;
  }

  return [
    {
      method: "GET",
      path: FLAG_SNAPSHOT_PATH,
      fromMemory: true,
      scope: "flags:read",
      style: "data",
      body: false,
      async handle(ctx) {
        refuseQuery(ctx.query);
        const snapshot = await current();
        const coding = snapshot.body.compressible ? negotiateCoding(ctx.headers["accept-encoding"]) : undefined;
        const headers: Record<string, string> = {
          etag: etagOf(snapshot.version, coding),
          "cache-control": "no-cache",
          vary: "Accept-Encoding",
        };
        if (clientIsCurrent(ctx.headers["if-none-match"], snapshot.version)) return { status: 304, headers };
        headers["content-type"] = JSON_TYPE;
        if (coding === undefined) return { status: 200, bytes: snapshot.body.identity, headers };
        headers["content-encoding"] = coding;
        return { status: 200, bytes: await snapshot.body.encoded(coding), headers };
      },
    },
  ];
}
