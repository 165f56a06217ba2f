import { createHash } from "node:crypto";
import { FlagpostError } from "../errors.js";
import { UUID_PATTERN } from "../ids.js";
import type { EventKey } from "../ports/storage/index.js";

/**
 * The event list's keyset cursor: base64url of `e1.<timestamp ms>.<id>.<filter hash>`. Opaque to
 * clients. The filter hash ties a cursor to the filters of the query that made it: a page boundary
 * means nothing under other filters, so such a reuse is refused rather than answered wrongly.
 */

export interface CursorFilters {
  userId?: string;
  event?: string;
  /** Epoch ms, after parsing: "2026-01-31" and "2026-01-31T00:00:00Z" are the same filter. */
  from?: number;
  to?: number;
}

const VERSION = "e1";
const HASH_LENGTH = 16;

export function filterHash(filters: CursorFilters): string {
  const canonical = JSON.stringify([
    filters.userId ?? null,
    filters.event ?? null,
    filters.from ?? null,
    filters.to ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, HASH_LENGTH);
}

export function encodeEventCursor(key: { ms: number; id: string }, hash: string): string {
  return Buffer.from(`${VERSION}.${key.ms}.${key.id}.${hash}`, "utf8").toString("base64url");
}

function invalid(message: string): FlagpostError {
  return new FlagpostError("validation_error", `"cursor" ${message}`, { details: [{ path: "cursor", message }] });
}

/** The key after which the next page starts; 422 when the cursor is not ours or was made for other filters. */
export function decodeEventCursor(cursor: string, hash: string): EventKey {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const parts = text.split(".");
  const [version, ms, id, cursorHash] = parts;
  const valid =
    parts.length === 4 &&
    version === VERSION &&
    /^-?\d{1,16}$/.test(ms!) &&
    UUID_PATTERN.test(id!) &&
    cursorHash!.length === HASH_LENGTH &&
    Buffer.from(text, "utf8").toString("base64url") === cursor;
  if (!valid) throw invalid("is not a cursor this API returned");
  if (cursorHash !== hash) {
    throw invalid(
      "was made for other filters (userId, event, from, to): repeat the query that returned it, or start again without a cursor",
    );
  }
  const timestamp = Number(ms);
  // Date's range: a key no event can have.
  if (Number.isNaN(new Date(timestamp).getTime())) throw invalid("is not a cursor this API returned");
  return { timestamp, id: id! };
}
