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
  "metrics:read",
] as const;

export type Scope = (typeof SCOPES)[number];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes("full_access") || granted.includes(needed);
}
