import type { BounceReason } from "../reports.js";

/**
 * What an enhanced status code (RFC 3463 and its registry) says of the reason on its own, for the
 * codes that say something; after Sisimai's table. Some are weak (5.7.1 "delivery not authorized"
 * is said for blocklists, spam, DMARC and unknown users alike): those reasons are checked again
 * against the server's words (see RECHECKED in ./decide.ts).
 */
const BY_STATUS: Record<string, BounceReason> = {
  "4.1.6": "hasmoved",
  "4.1.7": "rejected",
  "4.1.8": "rejected",
  "4.1.9": "systemerror",
  "4.2.1": "blocked",
  "4.2.2": "mailboxfull",
  "4.2.3": "exceedlimit",
  "4.2.4": "filtered",
  "4.3.1": "systemfull",
  "4.3.2": "notaccept",
  "4.3.3": "systemerror",
  "4.3.5": "systemerror",
  "4.4.1": "expired",
  "4.4.2": "networkerror",
  "4.4.3": "systemerror",
  "4.4.4": "networkerror",
  "4.4.5": "systemfull",
  "4.4.6": "networkerror",
  "4.4.7": "expired",
  "4.4.8": "networkerror",
  "4.5.3": "systemerror",
  "4.5.5": "systemerror",
  "4.6.0": "contenterror",
  "4.6.2": "contenterror",
  "4.6.5": "contenterror",
  "4.7.1": "blocked",
  "4.7.2": "blocked",
  "4.7.5": "securityerror",
  "4.7.6": "securityerror",
  "4.7.7": "securityerror",
  "4.7.12": "securityerror",
  "4.7.15": "securityerror",
  "4.7.16": "mesgtoobig",
  "4.7.24": "authfailure",
  "4.7.25": "requireptr",
  "4.7.26": "authfailure",
  "5.1.0": "userunknown",
  "5.1.1": "userunknown",
  "5.1.2": "hostunknown",
  "5.1.3": "userunknown",
  "5.1.4": "filtered",
  "5.1.6": "hasmoved",
  "5.1.7": "rejected",
  "5.1.8": "rejected",
  "5.1.9": "systemerror",
  "5.1.10": "notaccept",
  "5.2.0": "filtered",
  "5.2.1": "filtered",
  "5.2.2": "mailboxfull",
  "5.2.3": "exceedlimit",
  "5.2.4": "filtered",
  "5.3.0": "systemerror",
  "5.3.1": "systemfull",
  "5.3.2": "notaccept",
  "5.3.3": "systemerror",
  "5.3.4": "mesgtoobig",
  "5.3.5": "systemerror",
  "5.4.0": "networkerror",
  "5.4.3": "systemerror",
  "5.4.4": "hostunknown",
  "5.5.2": "syntaxerror",
  "5.5.3": "toomanyconn",
  "5.5.4": "systemerror",
  "5.5.5": "systemerror",
  "5.5.6": "syntaxerror",
  "5.7.13": "suspend",
  "5.7.16": "mesgtoobig",
  "5.7.17": "hasmoved",
  "5.7.18": "hasmoved",
  "5.7.20": "authfailure",
  "5.7.21": "authfailure",
  "5.7.22": "authfailure",
  "5.7.23": "authfailure",
  "5.7.24": "authfailure",
  "5.7.25": "requireptr",
  "5.7.26": "authfailure",
  "5.7.27": "notaccept",
  "5.7.28": "spamdetected",
  "5.7.29": "authfailure",
  "5.7.30": "failedstarttls",
};

/** The reason a status code names by itself, or undefined (x.6.x and x.7.x: see subjectReason). */
export function reasonOfStatus(status: string | undefined): BounceReason | undefined {
  if (status === undefined) return undefined;
  const named = BY_STATUS[status];
  if (named !== undefined) return named;
  if (/^5\.6\.[0-35-9]$/.test(status)) return "contenterror";
  if (/^5\.7\.([0-9]|1[0-9])$/.test(status)) return "securityerror";
  return undefined;
}

/** The last resort of a status: any media code (x.6.x) or security code (x.7.x, e.g. 5.7.606). */
export function subjectReason(status: string | undefined): BounceReason | undefined {
  if (status === undefined) return undefined;
  if (status.slice(1, 4) === ".6.") return "contenterror";
  if (status.slice(1, 4) === ".7.") return "securityerror";
  return undefined;
}
