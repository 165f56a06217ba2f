import type { Phrase } from "./match.js";

/**
 * What servers say when the sender's domain, address or authentication is refused: SPF, DKIM and
 * DMARC failures, relaying denied, an invalid envelope sender, missing SMTP authentication or TLS.
 * Servers' own words, collected from real bounces (Sisimai's tables as guide).
 */

/** SPF, DKIM or DMARC said no. */
export const AUTH_FAILURE: readonly Phrase[] = [
  "//spf.pobox.com",
  "bad spf records for",
  "dmarc policy",
  "dmarc check failed",
  "please inspect your spf settings",
  "sender policy framework (spf) fail",
  "sender policy framework violation",
  "spf (sender policy framework) domain authentication fail",
  "spf check: fail",
  "blocked for failing both spf and dkim",
  "does not pass dmarc verification",
  "unauthenticated email from",
  "does not have authentication information or fails to pass",
  [" is not allowed to send mail.", "_401"],
  ["is not allowed to send from <", " per it's spf record"],
];

/** The server is not the recipient's and will not relay. */
export const NO_RELAYING: readonly Phrase[] = [
  "as a relay",
  "email address is not verified.",
  "insecure mail relay",
  "is not permitted to relay through this server without authentication",
  "mail server requires authentication when attempting to send to a non-local e-mail address",
  "no relaying",
  "not a gateway",
  "not allowed to relay through this machine",
  "not an open relay, so get lost",
  "not local host",
  "relay access denied",
  "relay denied",
  "relaying mail to ",
  "relay not permitted",
  "relaying denied",
  "specified domain is not allowed",
  "that domain isn't in my list of allowed rcpthost",
  "this system is not configured to relay mail",
  "unable to relay for",
  "we don't handle mail for",
];

/** Phrases that look like a refused sender but are about the recipient or the sending IP. */
export const NOT_REJECTED: readonly string[] = [
  "5.1.0 address rejected",
  "recipient address rejected",
  "sender ip address rejected",
];

/** The envelope sender (MAIL FROM) is refused. */
export const REJECTED: readonly Phrase[] = [
  "access denied (in reply to mail from command)",
  "access denied (sender blacklisted)",
  "address rejected",
  "administrative prohibition",
  "batv failed to verify",
  "batv validation failure",
  "backscatter protection detected an invalid or expired email address",
  "because the sender isn't on the recipient's list of senders to accept mail from",
  "bogus mail from",
  "can't determine purported responsible address",
  "connections not accepted from servers without a valid sender domain",
  "denied [bouncedeny]",
  "denied by secumail valid-address-filter",
  "delivery not authorized, message refused",
  "does not exist e2110",
  "domain of sender address ",
  "email address is on senderfilterconfig list",
  "emetteur invalide",
  "empty envelope senders not allowed",
  "envelope blocked - ",
  "error: no third-party dsns",
  "from: domain is invalid. please provide a valid from:",
  "fully qualified email address required",
  "invalid domain, see <url:",
  "invalid sender",
  "is not a registered gateway user",
  "mail from not owned by user",
  "message rejected: email address is not verified",
  "mx records for ",
  "null sender is not allowed",
  "recipient addresses rejected : access denied",
  "recipient not accepted. (batv: no tag",
  "returned mail not accepted here",
  "rfc 1035 violation: recursive cname records for",
  "rule imposed mailbox access for",
  "sending this from a different address or alias using the ",
  "sender address has been blacklisted",
  "sender email address rejected",
  "sender is in my black list",
  "sender is spammer",
  "sender not pre-approved",
  "sender rejected",
  "sender domain is empty",
  "sender verify failed",
  "sender was rejected",
  "spam reporting address",
  "syntax error: empty email address",
  "the message has been rejected by batv defense",
  "this server does not accept mail from",
  "transaction failed unsigned dsn for",
  "unroutable sender address",
  "you are not allowed to post to this mailing list",
  "you are sending to/from an address that has been blacklisted",
  "your access to submit messages to this e-mail system has been rejected",
  "your email address has been blacklisted",
];

/** Words that name a refused sender only when said in reply to MAIL FROM. */
export const REJECTED_AT_MAIL: readonly Phrase[] = ["access denied"];

/** Authentication, TLS or another security requirement was not met. */
export const SECURITY_ERROR: readonly Phrase[] = [
  "account not subscribed to ses",
  "authentication credentials invalid",
  "authentication failure",
  "authentication required",
  "authentication turned on in your email client",
  "turn on smtp authentication",
  "executable files are not allowed in compressed files",
  "insecure mail relay",
  "recipient address rejected: access denied",
  "sorry, you don't authenticate or the domain isn't in my list of allowed rcpthosts",
  "unauthenticated senders not allowed",
  "verification failure",
  "you are not authorized to send mail, authentication is required",
  ["authentication failed; server ", " said: "],
  ["authentification invalide", "305"],
  ["authentification requise", "402"],
  ["domain ", " is a dead domain"],
  ["user ", " is not authorized to perform ses:sendrawemail on resource"],
];

/** The receiver requires STARTTLS, or TLS failed. */
export const FAILED_STARTTLS: readonly Phrase[] = [
  "starttls is required to send mail",
  "tls required but not supported",
  "must issue a starttls command first",
];
