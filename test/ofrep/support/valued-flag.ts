import type { Flagpost } from "../../../src/flagpost.js";

/**
 * A valued flag as the OFREP tests read it: variants "a" and "b" weighted 50/50 with values `a`
 * and `b`, and a users rule that serves "b" by name to the user "vip".
 */
export function createValuedFlag(fp: Flagpost, key: string, a: unknown, b: unknown) {
  return fp.flags.create({
    key,
    enabled: true,
    variants: [
      { key: "a", weight: 50, value: a },
      { key: "b", weight: 50, value: b },
    ],
    rules: [{ type: "users", userIds: ["vip"], variant: "b" }],
  });
}
