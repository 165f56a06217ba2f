import { sql } from "kysely";
import type { EngineTraits } from "./engine-traits.js";

/** `name_id = n`, pages in (ts, id) order: SQLite's and MySQL's planners take the (name_id, ts) index for it. */
export const plainEventName: EngineTraits["eventName"] = {
  where: (eb, nameId) => eb("name_id", "=", nameId),
  orderByName: false,
};

/**
 * PostgreSQL's planner, given `name_id = n AND ts >= a AND ts < b ORDER BY ts DESC`, reads the (ts)
 * index backwards and filters the name: with the heap in time order, it prices that range as
 * sequential reads and the (name_id, ts) index's heap visits as random ones (random_page_cost 4),
 * so for any common name it expects the (ts) range to find the page sooner. At 1,000,000 events of
 * 50 names that read about 5,500 rows and 680 buffers for a page of 100, where the (name_id, ts)
 * index reads 101 rows and 70 buffers (issue 30, docs/events.md).
 *
 * Written as `name_id = ANY(ARRAY[n])` the name is not an equality the planner propagates, so it
 * keeps `name_id` in the ORDER BY: only the (name_id, ts) index gives that order (one array element
 * is one scan of its range, the time bounds still stop it), and the (ts) index would need a sort of
 * the whole window. The row estimate stays that of `name_id = n`.
 */
export const nameFirstEventName: EngineTraits["eventName"] = {
  where: (eb, nameId) => eb("name_id", "=", eb.fn("any", [sql`array[${nameId}]::smallint[]`])),
  orderByName: true,
};
