import { z } from "zod";
import type { PageRequest } from "./ports/storage/index.js";
import { parseInput } from "./validation.js";

/**
 * Resend's list pages (`PaginationOptions` / `PaginatedData` in the resend SDK), for every
 * Resend-shaped list (webhooks, emails, suppressions): newest first, `limit` 1–100 (default 20),
 * `after` or `before` an item's id (not both), answered as `{object: "list", has_more, data}`.
 */

const cursor = z.string().min(1).max(200);

/** Decimal digits only: Number() would also read "0x10", "1e2", " 16" and "" (as 0). */
const DECIMAL = /^[0-9]{1,15}$/;

/**
 * A list's `limit`: a number in process, a decimal integer string over HTTP, from 1 to `max`,
 * `fallback` when absent. Anything else gets one message that says what is wanted.
 */
export function limitField(max: number, fallback: number) {
  const message = `must be an integer from 1 to ${max}`;
  return z
    .union([z.number(), z.string()], { error: message })
    .transform((value, ctx) => {
      const n = typeof value === "number" ? value : DECIMAL.test(value) ? Number(value) : Number.NaN;
      if (Number.isInteger(n) && n >= 1 && n <= max) return n;
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    })
    .default(fallback);
}

/** The pagination fields; numbers may come as query strings. */
export const pageFields = {
  limit: limitField(100, 20),
  after: cursor.optional(),
  before: cursor.optional(),
};

/** With `.refine(oneCursor, ONE_CURSOR)`: `after` and `before` are not given together. */
export function oneCursor(q: { after?: string | undefined; before?: string | undefined }): boolean {
  return q.after === undefined || q.before === undefined;
}
export const ONE_CURSOR = { message: 'cannot be used together with "after"', path: ["before"] };

export const pageQuerySchema = z.strictObject(pageFields).refine(oneCursor, ONE_CURSOR);
export type PageQuery = z.input<typeof pageQuerySchema>;

export interface ListView<T> {
  object: "list";
  has_more: boolean;
  data: T[];
}

/**
 * One page and whether another lies beyond it (in the direction read), from one extra row.
 * `query` is checked with `schema` (default: the pagination fields alone); `read` gets the page
 * request and the parsed query.
 */
export async function readPage<
  R,
  V,
  Q extends { limit: number; after?: string | undefined; before?: string | undefined },
>(
  query: unknown,
  read: (page: PageRequest, parsed: Q) => Promise<R[]>,
  view: (row: R) => V,
  schema: z.ZodType<Q> = pageQuerySchema as unknown as z.ZodType<Q>,
): Promise<ListView<V>> {
  const parsed = parseInput(schema, query);
  const { limit, after, before } = parsed;
  const rows = await read(
    {
      limit: limit + 1,
      ...(after === undefined ? {} : { after }),
      ...(before === undefined ? {} : { before }),
    },
    parsed,
  );
  const hasMore = rows.length > limit;
  // Reading `before` a cursor keeps the rows nearest to it: the extra one is the newest.
  const page = hasMore ? (before !== undefined && after === undefined ? rows.slice(1) : rows.slice(0, limit)) : rows;
  return { object: "list", has_more: hasMore, data: page.map(view) };
}
