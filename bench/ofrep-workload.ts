import type { CreateFlagInput } from "flagpost";
import { type BenchUser, flagpostRules, KEY, makeFlagSet, makeUsers } from "./lib/flag-set.js";

/**
 * What bench:ofrep sends and serves: the 20 flags of the flags and http parts (the measured one
 * first) and 80 more, so the bulk answer holds 100 flags, half of them valued (a users rule that
 * names the variant it serves, then two weighted string variants), half percentage rollouts.
 */

export const BULK_FLAGS = 100;
export const EVALUATE_PATH = `/v1/flags/${KEY}/evaluate`;
export const SINGLE_PATH = `/ofrep/v1/evaluate/flags/${KEY}`;
export const BULK_PATH = "/ofrep/v1/evaluate/flags";

export function ofrepUsers(count: number): BenchUser[] {
  return makeUsers(count);
}

export function ofrepFlags(users: readonly BenchUser[]): CreateFlagInput[] {
  const flags: CreateFlagInput[] = flagpostRules(makeFlagSet(users));
  for (let i = flags.length; i < BULK_FLAGS; i++) {
    const key = `extra-${String(i).padStart(3, "0")}`;
    if (i % 2 === 0) flags.push({ key, enabled: true, rules: [{ type: "percentage", percentage: i % 100 }] });
    else
      flags.push({
        key,
        enabled: true,
        variants: [
          { key: "control", weight: 50, value: `Buy now ${i}` },
          { key: "treatment", weight: 50, value: `Order today ${i}` },
        ],
        rules: [{ type: "users", userIds: [users[i % users.length]!.id], variant: "treatment" }],
      });
  }
  return flags;
}

/** One request of a load run: autocannon sends these in turn on every connection. */
export interface LoadRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The same users as the three kinds of request: /v1 evaluate, OFREP single, OFREP bulk. */
export function requestsFor(users: readonly BenchUser[], key: string) {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  return {
    evaluate: users.map((u): LoadRequest => ({
      method: "POST",
      path: EVALUATE_PATH,
      headers,
      body: JSON.stringify({ userId: u.id, attributes: { plan: u.plan } }),
    })),
    single: users.map((u): LoadRequest => ({
      method: "POST",
      path: SINGLE_PATH,
      headers,
      body: JSON.stringify({ context: { targetingKey: u.id, plan: u.plan } }),
    })),
    bulk: users.map((u): LoadRequest => ({
      method: "POST",
      path: BULK_PATH,
      headers,
      body: JSON.stringify({ context: { targetingKey: u.id, plan: u.plan } }),
    })),
  };
}

export interface OfrepServerReady {
  port: number;
  key: string;
}
