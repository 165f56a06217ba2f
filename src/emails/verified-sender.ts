import type { ErrorDetail } from "../errors.js";
import type { MailAddress } from "../ports/transport.js";

/** Answers the verified sending domain an address belongs to, if any (src/domains/sending-domains.ts). */
export interface VerifiedSenders {
  verifiedDomainOf(from: MailAddress): Promise<unknown>;
}

/**
 * With `domains.requireVerified` (FLAGPOST_REQUIRE_VERIFIED_DOMAIN): the problem of a send whose
 * `from` domain is not a verified domain, named as Resend names it (422 `validation_error` on `from`).
 */
export async function unverifiedSender(
  senders: VerifiedSenders,
  from: MailAddress,
  prefix: PropertyKey[],
): Promise<ErrorDetail | undefined> {
  if (await senders.verifiedDomainOf(from)) return undefined;
  return {
    path: [...prefix, "from"].map(String).join("."),
    message: `must be at a verified domain: ${from.domain} is not verified (add it with POST /v1/domains and verify its DNS records)`,
  };
}
