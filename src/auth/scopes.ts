/** docs/api.md's scopes. `full_access` implies every other one. */
export const SCOPES = [
  "full_access",
  "emails:send",
  "emails:read",
  "flags:read",
  "flags:write",
  "flags:evaluate",
  "events:write",
  "events:read",
  "flags:client",
  "metrics:read",
] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

/**
 * `flags:client` (a browser key: the OFREP routes only) is held by every key that may already
 * evaluate or read flags, so a server key can call OFREP too.
 */
export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  if (granted.includes("full_access") || granted.includes(needed)) return true;
  return needed === "flags:client" && (granted.includes("flags:read") || granted.includes("flags:evaluate"));
}
