import type { FlagRecord } from "../../../src/ports/storage/flags.js";

const CREATED = Date.parse("2026-01-02T03:04:05.006Z");

/** A disabled flag with no rules, variants or prerequisites: each case sets what it tests. */
export function flagRecord(key: string, id: string, overrides: Partial<FlagRecord> = {}): FlagRecord {
  return {
    id,
    key,
    description: "",
    enabled: false,
    rules: [],
    variants: [],
    prerequisites: [],
    createdAt: CREATED,
    updatedAt: CREATED,
    ...overrides,
  };
}

/**
 * Flag ids in order from a counter the calling file owns (`…-000000000001`, `…-000000000002`);
 * `fill` pads the number and `prefix` starts the id, so files whose flags may meet stay apart.
 */
export function flagIds(fill = "0", prefix = "00000000"): () => string {
  let seq = 0;
  return () => {
    seq += 1;
    return `${prefix}-0000-7000-8000-${String(seq).padStart(12, fill)}`;
  };
}
