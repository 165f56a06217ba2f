import { type BenchUser, KEY, makeUsers } from "./lib/flag-set.js";

/**
 * What bench:http sends: the routes, and the request bodies that the load generator cycles
 * through (built from the flags part's seeded users, so every run sends the same requests).
 */

export interface RouteLoad {
  name: string;
  method: "POST" | "GET";
  path: string;
  /** The status every answer must have; anything else fails the run. */
  status: number;
  /** The scope flagpost's key needs for it. */
  scope: "flags:evaluate" | "events:write" | "flags:read" | "emails:send";
  /** Request bodies to cycle through; undefined entries for a GET, which sends none. */
  bodies(users: readonly BenchUser[]): (string | undefined)[];
}

/**
 * Distinct request bodies per route (users, 30% pro, 10 of them on the flag's user list).
 * autocannon builds every connection's requests before it starts (50 × this many), so more
 * would spend the first part of a short run building requests while the server waits.
 */
export const BODY_COUNT = 200;

export const ROUTES = {
  evaluate: {
    name: "evaluate",
    method: "POST",
    path: `/v1/flags/${KEY}/evaluate`,
    status: 200,
    scope: "flags:evaluate",
    bodies: (users) => users.map((u) => JSON.stringify({ userId: u.id, attributes: { plan: u.plan } })),
  },
  events: {
    name: "events",
    method: "POST",
    path: "/v1/events",
    status: 202,
    scope: "events:write",
    bodies: (users) =>
      users.map((u, i) =>
        JSON.stringify({
          event: "checkout_completed",
          userId: u.id,
          properties: { plan: u.plan, revenue: 10 + (i % 90), currency: "EUR" },
        }),
      ),
  },
  /** The whole flag set, as local-evaluation clients poll it (no If-None-Match: a 200 each time). */
  snapshot: {
    name: "snapshot",
    method: "GET",
    path: "/v1/flags/_snapshot",
    status: 200,
    scope: "flags:read",
    bodies: () => [undefined],
  },
} satisfies Record<string, RouteLoad>;

export type RouteName = keyof typeof ROUTES;

/** A route that only bench:scaling loads (bench:http's floors do not serve it): sending an email. */
export const SEND_ROUTE = {
  emails: {
    name: "emails",
    method: "POST",
    path: "/v1/emails",
    status: 200,
    scope: "emails:send",
    bodies: (users) =>
      users.map((u, i) =>
        JSON.stringify({
          from: "Flagpost Bench <bench@flagpost.example>",
          to: [`user-${u.id}@example.org`],
          subject: `Your receipt #${i}`,
          text: "Thank you for your order. Your items are on their way.",
        }),
      ),
  },
} satisfies Record<string, RouteLoad>;

/** Every route the load generator can send. */
export const LOAD_ROUTES = { ...ROUTES, ...SEND_ROUTE };
export type LoadRouteName = keyof typeof LOAD_ROUTES;

export function benchUsers(): BenchUser[] {
  return makeUsers(BODY_COUNT);
}

/** The servers bench/http-servers.ts can start (see there). */
export const SERVER_KINDS = [
  "floor-node",
  "floor-fastify",
  "floor-express",
  "floor-hono",
  "flagpost-node",
  "flagpost-node-no-metrics",
  "flagpost-express",
  "flagpost-fastify",
  "flagpost-hono",
] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

export interface ServerReady {
  port: number;
  /** The API key to send (flagpost kinds; the floors ignore it). */
  key: string;
}
