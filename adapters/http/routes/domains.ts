import type { CreateDomainInput, ResumeDomainInput, UpdateDomainInput } from "../../../src/domains/index.js";
import type { Flagpost } from "../../../src/flagpost.js";
import { routeTable } from "../route-table.js";
import type { Route } from "../types.js";
import { resendResourceRoutes } from "./resend-resource.js";

/**
 * docs/domains.md: Resend's domain routes (the resend SDK's `domains.*`), answered in its shapes
 * with its error body, all with scope full_access. `fp.domains` validates and decides.
 */
export function domainRoutes(fp: Flagpost): Route[] {
  const domains = fp.domains;
  return routeTable(
    { style: "resend", scope: "full_access" },
    {
      ...resendResourceRoutes<CreateDomainInput, UpdateDomainInput>("/v1/domains", domains),
      "POST /v1/domains/:id/verify": { answer: (ctx) => domains.verify(ctx.params.id!) },
      // flagpost's addition (docs/domains.md, "Reputation guard"): lifts the guard's pause.
      "POST /v1/domains/:id/resume": {
        body: true,
        answer: (ctx) => domains.resume(ctx.params.id!, (ctx.body ?? {}) as ResumeDomainInput),
      },
    },
  );
}
