import type {
  CreateDomainInput,
  Flagpost,
  PageQuery,
  ResumeDomainInput,
  UpdateDomainInput,
} from "../../../src/internal.js";
import { queryObject } from "../query.js";
import type { Route } from "../types.js";

/**
 * docs/domains.md: Resend's domain routes (the resend SDK's `domains.*`), answered in its shapes
 * with its error body, all with scope full_access. `fp.domains` validates and decides.
 */
export function domainRoutes(fp: Flagpost): Route[] {
  const base = { style: "resend" as const, scope: "full_access" as const };
  const domains = fp.domains;
  return [
    {
      ...base,
      method: "POST",
      path: "/v1/domains",
      body: true,
      async handle(ctx) {
        return { status: 201, body: await domains.create((ctx.body ?? {}) as CreateDomainInput) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/domains",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await domains.list(queryObject(ctx.query) as PageQuery) };
      },
    },
    {
      ...base,
      method: "GET",
      path: "/v1/domains/:id",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await domains.get(ctx.params.id!) };
      },
    },
    {
      ...base,
      method: "PATCH",
      path: "/v1/domains/:id",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await domains.update(ctx.params.id!, (ctx.body ?? {}) as UpdateDomainInput) };
      },
    },
    {
      ...base,
      method: "POST",
      path: "/v1/domains/:id/verify",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await domains.verify(ctx.params.id!) };
      },
    },
    {
      // flagpost's addition (docs/domains.md, "Reputation guard"): lifts the guard's pause.
      ...base,
      method: "POST",
      path: "/v1/domains/:id/resume",
      body: true,
      async handle(ctx) {
        return { status: 200, body: await domains.resume(ctx.params.id!, (ctx.body ?? {}) as ResumeDomainInput) };
      },
    },
    {
      ...base,
      method: "DELETE",
      path: "/v1/domains/:id",
      body: false,
      async handle(ctx) {
        return { status: 200, body: await domains.remove(ctx.params.id!) };
      },
    },
  ];
}
