/** The seam adapters and the CLI use for API keys and scopes. */
export { ApiKeys } from "./api-keys.js";
export type { ApiKeyInfo } from "./api-keys.js";
export { sameSecret } from "./key-hash.js";
export { SCOPES, hasScope, isScope } from "./scopes.js";
export type { Scope } from "./scopes.js";
