import type { PageQuery } from "../../../src/pagination.js";
import { queryObject } from "../query.js";
import type { RouteLine, TableEntry } from "../route-table.js";

/** A service behind one of Resend's resources, as the resend SDK calls it. */
interface ResendResource<Create, Update> {
  create(input: Create): Promise<unknown>;
  list(query: PageQuery): Promise<unknown>;
  get(id: string): Promise<unknown>;
  update(id: string, input: Update): Promise<unknown>;
  remove(id: string): Promise<unknown>;
}

/**
 * The five routes every Resend resource with those verbs has (domains, webhooks): create answers
 * 201, the others 200, each with what the service returns. A body left out reads as `{}`, so the
 * service, not the route, names what is missing.
 */
export function resendResourceRoutes<Create, Update>(
  path: `/v1/${string}`,
  service: ResendResource<Create, Update>,
): Partial<Record<RouteLine, TableEntry>> {
  const routes: [RouteLine, TableEntry][] = [
    [`POST ${path}`, { body: true, status: 201, answer: (ctx) => service.create((ctx.body ?? {}) as Create) }],
    [`GET ${path}`, { answer: (ctx) => service.list(queryObject(ctx.query) as PageQuery) }],
    [`GET ${path}/:id`, { answer: (ctx) => service.get(ctx.params.id!) }],
    [`PATCH ${path}/:id`, { body: true, answer: (ctx) => service.update(ctx.params.id!, (ctx.body ?? {}) as Update) }],
    [`DELETE ${path}/:id`, { answer: (ctx) => service.remove(ctx.params.id!) }],
  ];
  return Object.fromEntries(routes);
}
