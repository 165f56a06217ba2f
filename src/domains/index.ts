/** The seam adapters and the CLI use for sending domains: DKIM keys, DNS records and verification, the reputation guard. */
export { changeDomain } from "./domain-writes.js";
export type { DomainChange } from "./domain-writes.js";
export { resolverFor } from "./domains.js";
export type { DomainOptions } from "./domains.js";
export { sendingDomainOf } from "./reputation-window.js";
export type { CreateDomainInput, ResumeDomainInput, UpdateDomainInput } from "./schema.js";
