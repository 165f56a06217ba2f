import { z } from "zod";

/**
 * Wire shapes of the domain routes and `fp.domains`, as the resend SDK sends them
 * (`CreateDomainOptions` → `{name, region, custom_return_path, …}`, `UpdateDomainsOptions`).
 * docs/domains.md.
 */

/** A DNS host name (RFC 1035 §2.3.4): labels of letters, digits and inner hyphens, ≤ 253 characters. */
const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
    message: "must be a domain name such as example.com",
  });

/** One label under the domain, e.g. `bounces` or `mail.bounces`. */
const returnPath = z
  .string()
  .trim()
  .toLowerCase()
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, { message: "must be one DNS label such as bounces" });

const capabilities = z.strictObject({
  sending: z.enum(["enabled", "disabled"]).optional(),
  receiving: z.enum(["enabled", "disabled"]).optional(),
});

/** The settings a domain is created with and can change later: every one optional. */
const domainSettings = {
  open_tracking: z.boolean().optional(),
  click_tracking: z.boolean().optional(),
  tls: z.enum(["opportunistic", "enforced"]).optional(),
  capabilities: capabilities.optional(),
  tracking_subdomain: z.string().max(63).optional(),
};

export const createDomainSchema = z.strictObject({
  name: hostName,
  region: z.enum(["us-east-1", "eu-west-1", "sa-east-1", "ap-northeast-1"]).default("us-east-1"),
  custom_return_path: returnPath.optional(),
  ...domainSettings,
});
export type CreateDomainInput = z.input<typeof createDomainSchema>;

export const updateDomainSchema = z.strictObject(domainSettings);
export type UpdateDomainInput = z.input<typeof updateDomainSchema>;

/** `POST /v1/domains/{id}/resume` takes no fields: an empty object, or no body. */
export const resumeDomainSchema = z.strictObject({});
export type ResumeDomainInput = z.input<typeof resumeDomainSchema>;
