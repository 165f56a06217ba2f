import type { Phrase } from "./match.js";

/**
 * What servers say when delivery failed for reasons of the mail systems in between: gave up after
 * retrying, DNS or routing trouble, a full or misconfigured system, a local program that failed.
 * Servers' own words, collected from real bounces (Sisimai's tables as guide).
 */

/** The sending side gave up after retrying (queue lifetime). */
export const EXPIRED: readonly Phrase[] = [
  "connection timed out",
  "could not find a gateway for",
  "delivery attempts will continue to be",
  /delivery (?:time )?expired/,
  "failed to deliver to domain ",
  "giving up on",
  "have been failing for a long time",
  "has been delayed",
  "it has not been collected after",
  "message expired after sitting in queue for",
  "message expired, cannot connect to remote server",
  "message expired, connection refulsed",
  "message timed out",
  "retry time not reached for any host after a long failure period",
  "server did not respond",
  "this message has been in the queue too long",
  "unable to deliver message after multiple retries",
  "was not reachable within the allowed queue period",
  "your message could not be delivered for more than",
  ["could not be delivered for", " days"],
];

/** DNS, routing or a mail loop. */
export const NETWORK_ERROR: readonly Phrase[] = [
  "could not connect and send the mail to",
  "dns records for the destination computer could not be found",
  "hop count exceeded - possible mail loop",
  "host is unreachable",
  "host name lookup failure",
  "host not found, try again",
  "mail forwarding loop for ",
  /malformed (?:or unexpected )?name server reply/,
  "maximum forwarding loop count exceeded",
  "message looping",
  "message probably in a routing loop",
  "no route to host",
  "too many hops",
  "unable to resolve route ",
  "unrouteable mail domain",
];

/** The receiving system failed or is misconfigured. */
export const SYSTEM_ERROR: readonly Phrase[] = [
  "aliasing/forwarding loop broken",
  "can't create user output file",
  "could not load drd for domain",
  "internal error reading data",
  "internal server error: operation now in progress",
  "interrupted system call",
  "it encountered an error while being processed",
  "it would create a mail loop",
  "local configuration error",
  "local error in processing",
  "loop was found in the mail exchanger",
  "loops back to myself",
  "mail system configuration error",
  "queue file write error",
  "recipient deferred because there is no mdb",
  "remote server is misconfigured",
  "server configuration error",
  "service currently unavailable",
  "system config error",
  "temporary local problem",
  "timeout waiting for input",
  /transaction failed(?: |$)/,
  ["unable to connect ", "daemon"],
];

/** The receiving system's disk is full. */
export const SYSTEM_FULL: readonly Phrase[] = [
  "mail system full",
  "requested mail action aborted: exceeded storage allocation",
];

/** A local delivery program (procmail, a pipe) failed. */
export const MAILER_ERROR: readonly Phrase[] = [
  " || exit ",
  "procmail: ",
  "bin/procmail",
  "bin/maidrop",
  "command failed: ",
  "command died with status ",
  "command output:",
  "mailer error",
  "pipe to |/",
  "x-unix; ",
];

/** An out-of-office answer quoted as a bounce. */
export const VACATION: readonly Phrase[] = [
  "i am away on vacation",
  "i am away until",
  "i am out of the office",
  "i will be traveling for work on",
];
