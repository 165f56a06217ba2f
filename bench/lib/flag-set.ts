import type { Rule } from "flagpost";

/**
 * The flag workload the flags and http parts share: seeded users and the 20-flag set. The
 * measured flag has a 10-id user list, `plan equals pro`, then a 25% rollout; 30% of users are pro.
 */

export const KEY = "new-checkout";

export interface BenchUser {
  id: string;
  plan: "pro" | "free";
}

export interface FlagSet {
  /** The measured flag. */
  key: string;
  /** The measured flag's users rule. */
  listed: string[];
  /** Filler flags (percentage rollouts) so the SDK's store holds 20 flags. */
  others: { key: string; percentage: number }[];
}

/** mulberry32: a seeded generator, so every run benchmarks the same users. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** UUID-shaped ids (what most apps pass as userId); 30% on the pro plan. */
export function makeUsers(n: number): BenchUser[] {
  const rand = random(42);
  const hex = (digits: number) => Array.from({ length: digits }, () => Math.floor(rand() * 16).toString(16)).join("");
  return Array.from({ length: n }, () => ({
    id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
    plan: rand() < 0.3 ? "pro" : "free",
  }));
}

/** The 20 flags: the measured one lists 10 of `users`, picked with a fixed seed. */
export function makeFlagSet(users: readonly BenchUser[]): FlagSet {
  const rand = random(7);
  return {
    key: KEY,
    listed: Array.from({ length: 10 }, () => users[Math.floor(rand() * users.length)]!.id),
    others: Array.from({ length: 19 }, (_, i) => ({
      key: `flag-${String(i + 1).padStart(2, "0")}`,
      percentage: 5 * (i + 1),
    })),
  };
}

/** The flag set as flagpost flags. */
export function flagpostRules(flags: FlagSet): { key: string; enabled: boolean; rules: Rule[] }[] {
  return [
    {
      key: KEY,
      enabled: true,
      rules: [
        { type: "users", userIds: flags.listed },
        { type: "attribute", attribute: "plan", operator: "equals", value: "pro" },
        { type: "percentage", percentage: 25 },
      ],
    },
    ...flags.others.map((o) => ({
      key: o.key,
      enabled: true,
      rules: [{ type: "percentage" as const, percentage: o.percentage }],
    })),
  ];
}
