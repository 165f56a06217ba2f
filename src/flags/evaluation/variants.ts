import { BUCKETS, murmur3Utf8 } from "./bucket.js";
import { type HashPrefix, hashPrefix, murmur3WithPrefix } from "./murmur3-prefix.js";
import type { Variant } from "../schema.js";
import { type JsonType, jsonTypeOf } from "../values.js";

/**
 * Sticky variant assignment, exactly as docs/experiments.md fixes it:
 * b = murmur3_x86_32(utf8("variant:" + flagKey + ":" + userId), seed 0) % 10000, and the user gets
 * the first variant whose running weight sum × 100 exceeds b. The "variant:" salt keeps the
 * variant bucket independent of the rollout bucket (flagKey + ":" + userId): the users a 10 %
 * rollout lets in are spread over the variants by their weights, not all put in the first one.
 */

export const VARIANT_SALT = "variant:";

/** The user's variant bucket for this flag, 0 to 9999. */
export function variantBucketOf(flagKey: string, userId: string): number {
  return murmur3Utf8(`${VARIANT_SALT}${flagKey}:${userId}`) % BUCKETS;
}

/** The variant whose weight range holds `bucket`, or undefined when there are no variants. */
export function variantForBucket(variants: readonly Variant[], bucket: number): string | undefined {
  let running = 0;
  for (const variant of variants) {
    running += Math.round(variant.weight * 100);
    if (running > bucket) return variant.key;
  }
  return undefined;
}

/** The reference assignment: the user's variant, or undefined when the flag has none. */
export function variantOf(
  flagKey: string,
  variants: readonly Variant[] | undefined,
  userId: string,
): string | undefined {
  if (variants === undefined || variants.length === 0) return undefined;
  return variantForBucket(variants, variantBucketOf(flagKey, userId));
}

/** Variants compiled for the hot path: the salted prefix hashed once, weights as running thresholds. */
export class CompiledVariants {
  constructor(
    readonly keys: readonly string[],
    /** Running weight sums in hundredths: variant i holds the buckets below thresholds[i] not held by an earlier one. */
    readonly thresholds: Int32Array,
    readonly prefix: HashPrefix,
    /** Each variant's value, parallel to `keys`; null when the flag's variants carry no values. */
    readonly values: readonly unknown[] | null,
    /** The JSON type of every value (values.ts), undefined without values. */
    readonly valueType: JsonType | undefined,
  ) {}

  /** The user's variant. Allocation-free for ASCII ids. */
  assign(userId: string): string | undefined {
    const index = this.indexFor(userId);
    return index < 0 ? undefined : this.keys[index];
  }

  /** The index in `keys` of the user's variant, or -1 (weights that do not reach 100). */
  indexFor(userId: string): number {
    const bucket = murmur3WithPrefix(this.prefix, userId) % BUCKETS;
    const thresholds = this.thresholds;
    for (let i = 0; i < thresholds.length; i++) if (thresholds[i]! > bucket) return i;
    return -1;
  }
}

/** null when the flag has no variants; throws on a malformed list (the flag is then reported broken). */
export function compileVariants(flagKey: string, variants: unknown): CompiledVariants | null {
  if (variants === undefined || variants === null) return null;
  if (!Array.isArray(variants)) throw new Error("the flag's variants are not a list");
  if (variants.length === 0) return null;
  const keys: string[] = [];
  const values: unknown[] = [];
  const thresholds = new Int32Array(variants.length);
  let running = 0;
  variants.forEach((variant: Partial<Variant> | null, i) => {
    if (typeof variant?.key !== "string" || typeof variant.weight !== "number")
      throw new Error("a variant needs a string key and a number weight");
    running += Math.round(variant.weight * 100);
    keys.push(variant.key);
    values.push(frozenCopy(variant.value));
    thresholds[i] = running;
  });
  const valueType = jsonTypeOf(values[0]);
  const valued = values.some((value) => value !== undefined);
  if (valued && values.some((value) => jsonTypeOf(value) !== valueType || valueType === undefined))
    throw new Error("the flag's variant values are not all of one JSON type");
  return new CompiledVariants(
    keys,
    thresholds,
    hashPrefix(`${VARIANT_SALT}${flagKey}:`),
    valued ? values : null,
    valued ? valueType : undefined,
  );
}

/**
 * A value as getValue hands it out: every caller gets the same object, so it is a copy of the
 * stored one, frozen all the way down. A caller that changes it gets a TypeError (in strict code)
 * instead of changing what every other caller reads. Paid once per flag change, not per call.
 */
function frozenCopy(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return deepFreeze(structuredClone(value));
}

function deepFreeze(value: object): object {
  for (const item of Object.values(value)) if (typeof item === "object" && item !== null) deepFreeze(item);
  return Object.freeze(value);
}
