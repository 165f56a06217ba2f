// The /v1 domain routes (docs/domains.md), Resend-shaped like the email routes: the resource as
// the body, errors as {statusCode, name, message}. Every one needs full_access.

import { request } from "./mail-api.js";

const path = (id) => `/domains/${encodeURIComponent(id)}`;

export const domainApi = {
  /** Newest first, `after` = the last id of the previous page; each with `status` and `paused`. */
  list: ({ after, limit = 50 } = {}) => request("GET", "/domains", { query: { limit: String(limit), after } }),
  /** One domain with its `records`, `paused_at` and `reputation` (rates over the window). */
  get: (id) => request("GET", path(id)),
  create: (domain) => request("POST", "/domains", { body: domain }),
  /** Looks the records up in DNS before answering; `get` then shows the result. */
  verify: (id) => request("POST", `${path(id)}/verify`),
  /** Clears the reputation guard's pause; answers the domain as `get` does. */
  resume: (id) => request("POST", `${path(id)}/resume`, { body: {} }),
  remove: (id) => request("DELETE", path(id)),
};
