import murmurhash from "murmurhash-js";
import { type FlagSet, KEY } from "./flag-set.js";

/** The bare servers' evaluation of the measured flag, hand-written: a Set, a compare, a hash of key:userId. */
export function floorEvaluator(flags: FlagSet): (body: { userId?: string; attributes?: { plan?: string } }) => object {
  const users = new Set(flags.listed);
  const prefix = `${KEY}:`;
  return (body) => {
    const userId = body.userId;
    if (userId !== undefined && users.has(userId)) return { enabled: true, reason: "rule_match", ruleIndex: 0 };
    if (body.attributes?.plan === "pro") return { enabled: true, reason: "rule_match", ruleIndex: 1 };
    if (userId !== undefined && murmurhash.murmur3(prefix + userId, 0) % 10_000 < 2500)
      return { enabled: true, reason: "rule_match", ruleIndex: 2 };
    return { enabled: false, reason: "no_rule_match" };
  };
}
