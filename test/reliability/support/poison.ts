/**
 * Values no backend may store, written as JSON text (some, like 1e400 or an own "__proto__" key,
 * cannot come out of JSON.stringify). Each is a fragment that fits where a JSON value goes.
 */

/** `{"a":{"a":…{"a":1}…}}`, `levels` objects deep. */
export function nestedJson(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{"a":1}' + "}".repeat(levels - 1);
}

export const POISON = {
  /** A string holding U+0000. */
  nul: JSON.stringify("a\u0000b"),
  /** A lone high surrogate (JSON.stringify escapes it as \ud800; JSON.parse gives it back). */
  highSurrogate: JSON.stringify("x\ud800y"),
  /** A lone low surrogate. */
  lowSurrogate: JSON.stringify("\udc00z"),
  /** A number JSON.parse turns into Infinity. */
  huge: "1e400",
  hugeNegative: "-1e400",
  /** An object with an own "__proto__" key. */
  protoKey: '{"__proto__":{"polluted":true}}',
  /** 6,000 levels: the reproduction of issue 11 (about 12 KB). */
  deep: nestedJson(6_000),
  /** One level past the bound. */
  deep65: nestedJson(65),
} as const;

export type PoisonName = keyof typeof POISON;
export const POISON_NAMES = Object.keys(POISON) as PoisonName[];

/** Poison values that are strings: they also fit where only a string is accepted. */
export const STRING_POISON: PoisonName[] = ["nul", "highSurrogate", "lowSurrogate"];

/** The text of `template` with every `$` replaced by `fragment` (templates are written by hand). */
export function fill(template: string, fragment: string): string {
  return template.split("$").join(fragment);
}
