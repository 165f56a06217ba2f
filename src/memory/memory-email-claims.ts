import type { ClaimedEmail, EmailRecord } from "../ports/storage/index.js";
import { headlineOf } from "../ports/storage/email-headline.js";
import { copy } from "./memory-table.js";

/** The stored size of each email's content (its JSON's length, as the SQL adapters measure it), computed once. */
const contentSizes = new WeakMap<object, number>();

function contentSize(record: EmailRecord): number {
  let size = contentSizes.get(record.content);
  if (size === undefined) contentSizes.set(record.content, (size = JSON.stringify(record.content).length));
  return size;
}

/** A claimed email as the port hands it out: without its content when that is larger than `max`. */
export function claimedCopy(record: EmailRecord, max: number | undefined): ClaimedEmail {
  const size = max === undefined ? 0 : contentSize(record);
  if (max === undefined || size <= max) return copy(record);
  return { ...copy({ ...record, content: headlineOf(record).content }), omittedContentBytes: size };
}
