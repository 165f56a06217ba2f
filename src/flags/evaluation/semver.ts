/**
 * Semantic Versioning 2.0.0 parsing and precedence, enough for the semver_* operators.
 * A leading "v" is accepted (as the `semver` package does); build metadata is ignored.
 * Numeric parts are compared as digit strings, so no version is too large to compare.
 */
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

export interface Semver {
  core: [string, string, string];
  prerelease: string[];
}

export function parseSemver(text: string): Semver | undefined {
  if (text.length > 256) return undefined;
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  return { core: [m[1]!, m[2]!, m[3]!], prerelease: m[4] === undefined ? [] : m[4].split(".") };
}

const NUMERIC = /^\d+$/;

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIdentifier(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) return compareDigits(a, b);
  if (an) return -1; // numeric identifiers have lower precedence than alphanumeric ones
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** -1, 0 or 1 by SemVer precedence. */
export function compareSemver(a: Semver, b: Semver): number {
  for (let i = 0; i < 3; i++) {
    const c = compareDigits(a.core[i]!, b.core[i]!);
    if (c !== 0) return c;
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    // A version without prerelease ranks above the same version with one.
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1;
  }
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a.prerelease[i]!, b.prerelease[i]!);
    if (c !== 0) return c;
  }
  return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length < b.prerelease.length ? -1 : 1;
}
