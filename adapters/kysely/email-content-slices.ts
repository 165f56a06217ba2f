import { setImmediate as nextTurn } from "node:timers/promises";
import type { EmailContent } from "../../src/ports/storage/index.js";
import type { Engine } from "./dialect.js";
import { relaxTransaction, withRelaxedCommit } from "./relaxed-durability.js";
import type { Db } from "./tables.js";

/**
 * Large email content in slices (docs/emails.md, "How a large email is stored"). One INSERT of a
 * 39 MiB row held SQLite's synchronous driver, and so the event loop, for about 200 ms, and
 * building it needed a JSON.stringify of the whole content. Instead, when the bodies and
 * attachments of an email add up to more than {@link SLICE_CHARS} characters, each of them goes
 * into slices of at most that many characters, written one INSERT at a time with the event loop
 * free in between; the row keeps the rest of the content as JSON, each moved string
 * replaced by the number of slices it fills. The row itself is committed last, durably, by the
 * insert that answers the request, so an email is stored exactly when its row is.
 */

/** Characters per slice: 1 MiB of base64 (ASCII), at most 3 MiB of other UTF-8 text. */
export const SLICE_CHARS = 1024 * 1024;

/** Slices read per statement: 8 MiB of base64, then the event loop has a turn. */
const READ_BATCH = 8;

type Slots = { holder: Record<string, unknown>; key: string }[];

/** The strings that move to slices, in slice order: html, text, then each attachment's content. */
function slotsOf(content: Record<string, unknown>): Slots {
  const slots: Slots = [];
  for (const key of ["html", "text"]) if (key in content) slots.push({ holder: content, key });
  const attachments = content["attachments"];
  if (Array.isArray(attachments))
    for (const attachment of attachments as Record<string, unknown>[])
      slots.push({ holder: attachment, key: "content" });
  return slots;
}

/** Pieces of at most SLICE_CHARS characters, never cutting a surrogate pair in two. */
function piecesOf(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + SLICE_CHARS, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end)); // a view of the string, not a copy
    start = end;
  }
  return pieces;
}

export interface SplitContent {
  /** The row's `content`: JSON of the content with each moved string replaced by its slice count. */
  skeleton: string;
  /** The moved strings' pieces, in slice order; each becomes bytes only when it is written. */
  pieces: string[];
}

/** The content split for slicing, or undefined when it is small enough for the row alone. */
export function splitContent(content: EmailContent): SplitContent | undefined {
  const copy: Record<string, unknown> = { ...content };
  if (content.attachments) copy["attachments"] = content.attachments.map((a) => ({ ...a }));
  const slots = slotsOf(copy);
  const total = slots.reduce((sum, { holder, key }) => sum + (holder[key] as string).length, 0);
  if (total <= SLICE_CHARS) return undefined;
  const pieces: string[] = [];
  for (const { holder, key } of slots) {
    const own = piecesOf(holder[key] as string);
    pieces.push(...own);
    holder[key] = own.length;
  }
  return { skeleton: JSON.stringify(copy), pieces };
}

/**
 * Slices written between two durable commits: 4 MiB of base64. SQLite's driver syncs on the
 * event loop, so what matters is the largest single sync, not their number: a durable commit per
 * slice was 39 syncs for a 39 MiB email (936 for the memory suite's 24), each a fixed disk wait on
 * the loop; relaxed slices with only the row durable moved all 39 MiB into the row's one sync
 * (630 ms in one turn at load 18). A durable slice every few MiB keeps each sync to a few MiB of
 * WAL and the count to a quarter.
 */
export const SLICES_PER_DURABLE_COMMIT = 4;

/**
 * Writes an email's slices, one INSERT each, and gives the event loop a turn after each. Most
 * commit relaxed (relaxed-durability.ts: SQLite NORMAL, PostgreSQL synchronous_commit off), every
 * {@link SLICES_PER_DURABLE_COMMIT}th and the last one durably. A durable commit makes every commit
 * before it durable too (SQLite's WAL is synced up to it; PostgreSQL's WAL is flushed in order),
 * so once the last slice returns all of them are on disk, and the row's own durable commit, which
 * is what a 200 stands for, syncs only itself. A power loss before the row commits leaves at most
 * orphan slices, which the purge deletes. Returns the bytes written.
 */
export async function writeSlices(
  db: Db,
  engine: Engine,
  emailId: string,
  pieces: readonly string[],
  now: number,
): Promise<number> {
  let bytes = 0;
  for (const [seq, piece] of pieces.entries()) {
    const slice = Buffer.from(piece, "utf8");
    bytes += slice.length;
    const insert = (on: Db) =>
      on.insertInto("flagpost_email_content_slices").values({ email_id: emailId, seq, bytes: slice, created_at: now });
    const durable = (seq + 1) % SLICES_PER_DURABLE_COMMIT === 0 || seq === pieces.length - 1;
    if (durable) await insert(db).execute();
    else
      await withRelaxedCommit(db, engine, (held) =>
        held.transaction().execute(async (trx) => {
          await relaxTransaction(trx, engine);
          await insert(trx).execute();
        }),
      );
    await nextTurn();
  }
  return bytes;
}

/** The row's `content` with its moved strings read back from the slices, in order. */
export async function joinSlices(db: Db, emailId: string, skeleton: string): Promise<EmailContent> {
  const content = JSON.parse(skeleton) as Record<string, unknown>;
  const slices: Uint8Array[] = [];
  for (let from = 0; ; from += READ_BATCH) {
    const rows = await db
      .selectFrom("flagpost_email_content_slices")
      .select("bytes")
      .where("email_id", "=", emailId)
      .where("seq", ">=", from)
      .where("seq", "<", from + READ_BATCH)
      .orderBy("seq")
      .execute();
    for (const row of rows) slices.push(row.bytes);
    if (rows.length < READ_BATCH) break;
    await nextTurn();
  }
  let next = 0;
  for (const { holder, key } of slotsOf(content)) {
    const count = holder[key] as number;
    if (next + count > slices.length) throw new Error(`the content of email ${emailId} misses slices`);
    holder[key] = Buffer.concat(slices.slice(next, next + count)).toString("utf8");
    next += count;
  }
  return content as unknown as EmailContent;
}

/**
 * Deletes slices that belong to no email: written by an insert that then failed, or by a process
 * that died before the email's row committed. Only slices written before `before` are looked at,
 * so an insert still writing its slices is left alone.
 */
export async function deleteOrphanSlices(db: Db, before: number, emailIds?: readonly string[]): Promise<number> {
  let query = db
    .deleteFrom("flagpost_email_content_slices")
    .where("created_at", "<", before)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("flagpost_emails")
            .select("flagpost_emails.id")
            .whereRef("flagpost_emails.id", "=", "flagpost_email_content_slices.email_id"),
        ),
      ),
    );
  if (emailIds) query = query.where("email_id", "in", emailIds);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
