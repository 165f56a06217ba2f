import { createHash } from "node:crypto";
import type { Flag, FlagSnapshotBody, Flagpost } from "../../../src/internal.js";
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
 */

export const FLAG_SNAPSHOT_PATH = "/v1/flags/_snapshot";

interface Snapshot extends FlagSnapshotBody {
  revision: number;
  etag: string;
}

/** The route's body and ETag for `flags` (sorted by key) at `revision`; the stream's snapshot event too. */
export function buildSnapshot(revision: number, flags: Flag[]): Snapshot {
  const version = createHash("sha256").update(JSON.stringify(flags)).digest("base64url").slice(0, 27);
  return { revision, etag: `"${version}"`, data: { version, flags } };
}

export function flagSnapshotRoutes(fp: Flagpost): Route[] {
  let cached: Snapshot | undefined;
  let pending: { revision: number; snapshot: Promise<Snapshot> } | undefined;

  /** The snapshot at the current revision: one cheap revision read per request, a full read only after a write. */
  async function current(): Promise<Snapshot> {
    // Read before the flags: a write in between moves the revision, so the next request rebuilds.
    const revision = await fp.flags.revision();
    if (cached?.revision === revision) return cached;
    if (pending?.revision !== revision) {
      const snapshot = fp.flags.all().then((flags) => buildSnapshot(revision, flags));
      pending = { revision, snapshot };
      snapshot.then(
        (built) => {
          if (!cached || built.revision >= cached.revision) cached = built;
          if (pending?.snapshot === snapshot) pending = undefined;
        },
        () => {
          if (pending?.snapshot === snapshot) pending = undefined;
        },
      );
    }
    return pending.snapshot;
  }

  return [
    {
      method: "GET",
      path: FLAG_SNAPSHOT_PATH,
      scope: "flags:read",
      style: "data",
      body: false,
      async handle(ctx) {
        refuseQuery(ctx.query);
        const snapshot = await current();
        const headers = { etag: snapshot.etag, "cache-control": "no-cache" };
        if (ifNoneMatchHits(ctx.headers["if-none-match"], snapshot.etag)) return { status: 304, headers };
        return { status: 200, body: { data: snapshot.data }, headers };
      },
    },
  ];
}
