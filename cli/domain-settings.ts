import { type DomainOptions, resolverFor } from "../src/internal.js";

/**
 * Sending-domain settings of `flagpost serve` (docs/domains.md): FLAGPOST_DNS_SERVERS (`host:port`
 * list the records are looked up at; unset, the system's resolver), FLAGPOST_DOMAIN_MX_HOST (the
 * return-path MX target; unset, this machine's host name) and FLAGPOST_DOMAIN_SPF (the SPF
 * mechanisms of the sending hosts; unset, `mx`).
 */
export function domainSettingsFrom(env: NodeJS.ProcessEnv): DomainOptions {
  const options: DomainOptions = {};
  const servers = env.FLAGPOST_DNS_SERVERS?.trim();
  if (servers) options.resolver = resolverFor(servers);
  const mxHost = env.FLAGPOST_DOMAIN_MX_HOST?.trim();
  if (mxHost) options.mxHost = mxHost;
  const spf = env.FLAGPOST_DOMAIN_SPF?.trim();
  if (spf) options.spf = spf;
  return options;
}
