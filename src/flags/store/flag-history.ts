import { z } from "zod";
import { limitField } from "../../pagination.js";
import { FlagpostError } from "../../errors.js";
import type { FlagActor, FlagHistoryEntry, Storage } from "../../ports/storage/index.js";
import { parseInput } from "../../validation.js";

/**
 * Reading a flag's history (docs/api.md "Flag history", docs/flags.md "History"): newest first, in pages. Entries are
 * written by the flag repository within each write; see FlagAudit in src/ports/storage/flag-history.ts.
 */

/** The actor of calls made on the library directly, without saying who. */
export const IN_PROCESS_ACTOR: FlagActor = Object.freeze({ type: "in_process" });

/** The history as the API shows it: the flag's key is the URL's, so it is left out of each entry. */
export type FlagHistoryView = Omit<FlagHistoryEntry, "flagKey">;

export interface FlagHistoryPage {
  data: FlagHistoryView[];
  /** Pass back as `cursor` for the next (older) page; absent on the last page. */
  nextCursor?: string;
}

export const listFlagHistoryQuerySchema = z.strictObject({
  limit: limitField(1000, 100),
  cursor: z.string().max(200).optional(),
});
export type ListFlagHistoryOptions = z.input<typeof listFlagHistoryQuerySchema>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The cursor is the last entry's id, base64url-encoded so clients treat it as opaque. */
function encodeCursor(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!UUID.test(id) || encodeCursor(id) !== cursor) {
    throw new FlagpostError("validation_error", '"cursor" is not a cursor this API returned', {
      details: [{ path: "cursor", message: "is not a cursor this API returned" }],
    });
  }
  return id;
}

function view(entry: FlagHistoryEntry): FlagHistoryView {
  const { flagKey: _key, ...rest } = entry;
  return rest;
}

/**
 * One page of the flag's history. A key with neither a flag nor any history is `not_found`;
 * a deleted flag's history is still served.
 */
export async function listFlagHistory(
  storage: Storage,
  key: string,
  options: ListFlagHistoryOptions = {},
): Promise<FlagHistoryPage> {
  const query = parseInput(listFlagHistoryQuerySchema, options);
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await storage.flagHistory.list(key, { before, limit: query.limit + 1 });
  if (rows.length === 0 && before === undefined && !(await storage.flags.get(key))) {
    throw new FlagpostError("not_found", `Flag "${key}" was not found`);
  }
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map(view),
    ...(rows.length > query.limit && last ? { nextCursor: encodeCursor(last.id) } : {}),
  };
}
