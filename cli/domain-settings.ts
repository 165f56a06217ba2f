import { type DomainOptions, resolverFor } from "../src/internal.js";
import { UsageError } from "./args.js";

/**
 * Sending-domain settings of `flagpost serve` (docs/domains.md): FLAGPOST_DNS_SERVERS (`host:port`
 * list the records are looked up at; unset, the system's resolver), FLAGPOST_DOMAIN_MX_HOST (the
 * return-path MX target; unset, this machine's host name) and FLAGPOST_DOMAIN_SPF (the SPF
 * mechanisms of the sending hosts; unset, `mx`), FLAGPOST_REQUIRE_VERIFIED_DOMAIN (`true` refuses
 * sends from a domain that is not verified; default `false`).
 */
export function domainSettingsFrom(env: NodeJS.ProcessEnv): DomainOptions {
  const options: DomainOptions = {};
  const servers = env.FLAGPOST_DNS_SERVERS?.trim();
  if (servers) options.resolver = resolverFor(servers);
  const mxHost = env.FLAGPOST_DOMAIN_MX_HOST?.trim();
  if (mxHost) options.mxHost = mxHost;
  const spf = env.FLAGPOST_DOMAIN_SPF?.trim();
  if (spf) options.spf = spf;
  const require = env.FLAGPOST_REQUIRE_VERIFIED_DOMAIN?.trim().toLowerCase();
  if (require !== undefined && require !== "") {
    if (require !== "true" && require !== "false")
      throw new UsageError(`FLAGPOST_REQUIRE_VERIFIED_DOMAIN must be true or false, not "${require}"`);
    options.requireVerified = require === "true";
  }
  return options;
}
