import type { Scope } from "../../src/auth/index.js";
import { nextLink } from "./query.js";
import type { KeyRoute, RouteContext, RouteResult } from "./types.js";

/**
 * A resource's routes written as a table, one `"METHOD /path"` line each (as docs/api.md lists
 * them), so a table cannot list a route twice and the parts every route of a resource shares are
 * said once.
 */

type Method = KeyRoute["method"];

/** What a table's routes share: how they answer and fail, and their scope unless a route names its own. */
export interface TableDefaults {
  style: "resend" | "data";
  scope?: Scope;
}

interface EntryOptions {
  scope?: Scope;
  /** Reads a JSON body (KeyRoute.body); a route without it ignores any body sent. */
  body?: true;
  bodyLimit?: number;
  fromMemory?: true;
}

/**
 * A route that answers `status` (200 unless said) with what `answer` resolves to, shaped as its
 * table's style shapes a success: as it is on Resend's routes, wrapped as `{data}` on flagpost's.
 */
interface AnswerEntry extends EntryOptions {
  status?: 201;
  answer(ctx: RouteContext): Promise<unknown>;
}

/** A route that builds its whole result: headers, a 202 or 204, a stream. */
interface HandleEntry extends EntryOptions {
  handle(ctx: RouteContext): Promise<RouteResult>;
}

export type TableEntry = AnswerEntry | HandleEntry;
export type RouteLine = `${Method} /${string}`;

export function routeTable(defaults: TableDefaults, table: Partial<Record<RouteLine, TableEntry>>): KeyRoute[] {
  return Object.entries(table).map(([line, entry]) => {
    const [method, path] = line.split(" ") as [Method, string];
    const scope = entry!.scope ?? defaults.scope;
    if (scope === undefined) throw new Error(`${line} names no scope, nor does its table`);
    const handle = "handle" in entry! ? entry.handle : answering(defaults.style, entry!);
    const route: KeyRoute = { method, path, scope, style: defaults.style, body: entry!.body === true, handle };
    if (entry!.bodyLimit !== undefined) route.bodyLimit = entry!.bodyLimit;
    if (entry!.fromMemory) route.fromMemory = true;
    return route;
  });
}

function answering(style: TableDefaults["style"], { answer, status: given }: AnswerEntry) {
  const status = given ?? 200;
  if (style === "data") return async (ctx: RouteContext) => ({ status, body: { data: await answer(ctx) } });
  return async (ctx: RouteContext) => ({ status, body: await answer(ctx) });
}

/**
 * 200 with a page of flagpost's lists as `{data}`, and a Link header to the next page when there
 * is one: `path` with the cursor and the request's own `carried` parameters (filters, limit).
 */
export function pageResult(
  ctx: RouteContext,
  page: { data: unknown[]; nextCursor?: string },
  path: string,
  carried: readonly string[],
): RouteResult {
  const headers: Record<string, string> = {};
  if (page.nextCursor) {
    const query: Record<string, string | undefined> = {};
    for (const name of carried) query[name] = ctx.query.get(name) ?? undefined;
    headers.link = nextLink(ctx.href(path, { ...query, cursor: page.nextCursor }));
  }
  return { status: 200, body: { data: page.data }, headers };
}
