import { type DomainOptions, resolverFor } from "../src/domains/index.js";
import { UsageError } from "./args.js";

/**
 * Sending-domain settings of `flagpost serve` (docs/domains.md): FLAGPOST_DNS_SERVERS (`host:port`
 * list the records are looked up at; unset, the system's resolver), FLAGPOST_DOMAIN_MX_HOST (the
 * return-path MX target; unset, this machine's host name) and FLAGPOST_DOMAIN_SPF (the SPF
 * mechanisms of the sending hosts; unset, `mx`), FLAGPOST_REQUIRE_VERIFIED_DOMAIN (`true` refuses
 * sends from a domain that is not verified; default `false`); the reputation guard's
 * FLAGPOST_REPUTATION_WINDOW, FLAGPOST_REPUTATION_BOUNCE_RATE and FLAGPOST_REPUTATION_COMPLAINT_RATE
 * (rates as fractions, 0.05 for 5%; a value that is not one fails the start with a message naming it).
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
  const reputation = {
    window: numberOf(env.FLAGPOST_REPUTATION_WINDOW),
    bounceRate: numberOf(env.FLAGPOST_REPUTATION_BOUNCE_RATE),
    complaintRate: numberOf(env.FLAGPOST_REPUTATION_COMPLAINT_RATE),
  };
  if (Object.values(reputation).some((v) => v !== undefined)) options.reputation = reputation;
  return options;
}

/** A set variable as a number (NaN when it is not one, which the guard's settings refuse); unset, undefined. */
function numberOf(text: string | undefined): number | undefined {
  return text === undefined || text.trim() === "" ? undefined : Number(text.trim());
}
