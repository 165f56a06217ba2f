import type { BounceReason, DeliveryAction } from "../reports.js";
import { BAD_REPUTATION, BLOCKED, REQUIRE_PTR, SPEEDING, TOO_MANY_CONN } from "./phrases/blocking.js";
import {
  CONTENT_ERROR,
  EXCEED_LIMIT,
  MESG_TOO_BIG,
  NOT_COMPLIANT_RFC,
  POLICY_VIOLATION,
  SPAM_DETECTED,
  VIRUS_DETECTED,
} from "./phrases/content.js";
import { type Phrase, says } from "./phrases/match.js";
import {
  FILTERED,
  HAS_MOVED,
  HOST_UNKNOWN,
  MAILBOX_FULL,
  NOT_ACCEPT,
  SUSPEND,
  USER_UNKNOWN,
} from "./phrases/recipient.js";
import {
  AUTH_FAILURE,
  FAILED_STARTTLS,
  NO_RELAYING,
  NOT_REJECTED,
  REJECTED,
  REJECTED_AT_MAIL,
  SECURITY_ERROR,
} from "./phrases/sender.js";
import { EXPIRED, MAILER_ERROR, NETWORK_ERROR, SYSTEM_ERROR, SYSTEM_FULL, VACATION } from "./phrases/system.js";
import { LOCAL_AGENTS, VENDOR_PHRASES } from "./phrases/vendors.js";
import { reasonOfStatus, subjectReason } from "./status-reasons.js";

/** What the decision reads: the facts of one recipient, normalised. */
export interface Evidence {
  /** The server's words, lower-cased, white space collapsed ("" when none). */
  text: string;
  status?: string;
  replyCode?: string;
  command?: string;
  action?: DeliveryAction;
  /** `smtp`, `x-unix`…: the Diagnostic-Code's type, when the report gives it. */
  diagnosticType?: string;
  hint?: BounceReason;
}

/**
 * Reasons a status code or a reader gives only tentatively: the words may name a better one
 * (a 5.1.1 whose text says "relay access denied" is no unknown user).
 */
const RECHECKED = new Set<BounceReason>([
  "undefined",
  "onhold",
  "systemerror",
  "securityerror",
  "expired",
  "networkerror",
  "hostunknown",
  "userunknown",
]);

const BEFORE_DATA = new Set(["CONN", "EHLO", "HELO", "MAIL", "RCPT"]);

/** The phrase table of each reason the text alone may name (second pass order, see below). */
const PHRASES: Partial<Record<BounceReason, readonly Phrase[]>> = {
  mailboxfull: MAILBOX_FULL,
  authfailure: AUTH_FAILURE,
  badreputation: BAD_REPUTATION,
  speeding: SPEEDING,
  spamdetected: SPAM_DETECTED,
  virusdetected: VIRUS_DETECTED,
  policyviolation: POLICY_VIOLATION,
  norelaying: NO_RELAYING,
  systemerror: SYSTEM_ERROR,
  networkerror: NETWORK_ERROR,
  suspend: SUSPEND,
  contenterror: CONTENT_ERROR,
  systemfull: SYSTEM_FULL,
  notaccept: NOT_ACCEPT,
  expired: EXPIRED,
  failedstarttls: FAILED_STARTTLS,
  securityerror: SECURITY_ERROR,
  mailererror: MAILER_ERROR,
};

/** The evidence, with each phrase table's answer kept: several tests ask the same table. */
interface Context extends Evidence {
  said(phrases: readonly Phrase[]): boolean;
}

function contextOf(e: Evidence): Context {
  const answers = new Map<readonly Phrase[], boolean>();
  return {
    ...e,
    said(phrases) {
      let answer = answers.get(phrases);
      if (answer === undefined) answers.set(phrases, (answer = says(e.text, phrases)));
      return answer;
    },
  };
}

const rejectedSaid = (e: Context) => !NOT_REJECTED.some((p) => e.text.includes(p)) && e.said(REJECTED);

type Probe = (e: Context, byStatus: BounceReason | undefined) => boolean;

const spamProbe: Probe = (e, s) =>
  e.status !== undefined && (s === "spamdetected" || (!BEFORE_DATA.has(e.command ?? "") && e.said(SPAM_DETECTED)));

/**
 * First pass: each reason's test from the status it names, the command and its phrases, in the
 * order that settles overlaps (a full mailbox before an unknown user, a refused sender before an
 * unknown host, a blocklist last). After Sisimai's first class order.
 */
const FIRST_PASS: readonly (readonly [BounceReason, Probe])[] = [
  ["mailboxfull", (e, s) => s === "mailboxfull" || e.said(MAILBOX_FULL)],
  ["mesgtoobig", (e, s) => s === "mesgtoobig" || (s !== "exceedlimit" && e.said(MESG_TOO_BIG))],
  ["exceedlimit", (e, s) => s === "exceedlimit" || e.said(EXCEED_LIMIT)],
  ["suspend", (e) => e.replyCode === "525" || e.said(SUSPEND)],
  ["hasmoved", (e) => e.said(HAS_MOVED)],
  [
    "norelaying",
    (e) =>
      !["securityerror", "systemerror", "undefined"].includes(e.hint ?? "") &&
      !["CONN", "EHLO", "HELO"].includes(e.command ?? "") &&
      e.said(NO_RELAYING),
  ],
  ["authfailure", (e, s) => s === "authfailure" || e.said(AUTH_FAILURE)],
  [
    "userunknown",
    (e, s) => {
      if (s === "suspend") return false;
      if (s !== "userunknown") return e.command === "RCPT" && e.said(USER_UNKNOWN);
      // 5.1.1 is also written for refusals that are about the sender or the mailbox's state.
      const other = [NO_RELAYING, BLOCKED, MAILBOX_FULL, HAS_MOVED, NOT_ACCEPT].some((t) => e.said(t));
      return !other && !rejectedSaid(e);
    },
  ],
  [
    "filtered",
    (e, s) => {
      if (s === "suspend") return false;
      if (s !== "filtered" && BEFORE_DATA.has(e.command ?? "")) return false;
      return e.said(FILTERED) || e.said(USER_UNKNOWN);
    },
  ],
  ["requireptr", (e, s) => s === "requireptr" || e.said(REQUIRE_PTR)],
  ["notcompliantrfc", (e) => e.said(NOT_COMPLIANT_RFC)],
  ["badreputation", (e) => e.said(BAD_REPUTATION)],
  ["contenterror", (e, s) => !spamProbe(e, s) && (s === "contenterror" || e.said(CONTENT_ERROR))],
  [
    "rejected",
    (e, s) => {
      if (s === "rejected") return true;
      if (e.command === "MAIL") return rejectedSaid(e) || e.said(REJECTED_AT_MAIL);
      if (e.command === "DATA") return s !== "userunknown" && rejectedSaid(e);
      // Otherwise only when the status names nothing firm.
      const vague = s === undefined || ["undefined", "onhold", "securityerror", "systemerror"].includes(s);
      return vague && rejectedSaid(e);
    },
  ],
  ["hostunknown", (e, s) => (s === "hostunknown" ? !e.said(NETWORK_ERROR) : e.said(HOST_UNKNOWN))],
  ["spamdetected", spamProbe],
  ["speeding", (e) => e.said(SPEEDING)],
  ["toomanyconn", (e, s) => s === "toomanyconn" || e.said(TOO_MANY_CONN)],
  ["blocked", (e, s) => s === "blocked" || e.said(BLOCKED)],
];

/** Second pass, when no first-pass test held: the text alone, in this order (Sisimai's second class order). */
const SECOND_PASS: readonly BounceReason[] = [
  "mailboxfull",
  "authfailure",
  "badreputation",
  "speeding",
  "spamdetected",
  "virusdetected",
  "policyviolation",
  "norelaying",
  "systemerror",
  "networkerror",
  "suspend",
  "contenterror",
  "systemfull",
  "notaccept",
  "expired",
  "failedstarttls",
  "securityerror",
  "mailererror",
];

function localAgentReason(e: Context): BounceReason | undefined {
  if (e.command !== undefined && e.command !== "DATA") return undefined;
  const agent = LOCAL_AGENTS.find((a) => e.said(a.says));
  if (agent === undefined) return undefined;
  // A local program that failed in a way none of its known messages names.
  return agent.reasons.find(([, phrases]) => e.said(phrases))?.[0] ?? "mailererror";
}

const vendorReason = (e: Context) =>
  VENDOR_PHRASES.find(([, phrases, cls]) => (cls === undefined || e.status?.[0] === cls) && e.said(phrases))?.[0];

function failedStartTls(e: Context): boolean {
  return e.command === "STARTTLS" || ["523", "524", "538"].includes(e.replyCode ?? "");
}

/** The reason for one recipient's failure, Sisimai's way (see bounce-classification.ts). */
export function decideReason(evidence: Evidence): BounceReason {
  const e = contextOf(evidence);
  if (e.action === "delivered" || e.action === "relayed" || e.action === "expanded") return "delivered";
  if (e.status?.startsWith("2.")) return "delivered";
  if (e.hint !== undefined && !RECHECKED.has(e.hint)) return e.hint;
  const byStatus = reasonOfStatus(e.status);
  const found =
    localAgentReason(e) ?? vendorReason(e) ?? firstPass(e, byStatus) ?? secondPass(e, byStatus) ?? lastResort(e);
  if (found !== undefined) return found;
  if (e.hint !== undefined) return e.hint;
  if (e.said(VACATION)) return "vacation";
  return e.text === "" ? "undefined" : "onhold";
}

function firstPass(e: Context, byStatus: BounceReason | undefined): BounceReason | undefined {
  const xunix = e.diagnosticType?.toLowerCase().startsWith("x-unix") ?? false;
  if (xunix) return undefined; // a local program's exit code: the words are not a server's reply
  for (const [reason, probe] of FIRST_PASS) {
    // A reader's tentative reason holds unless a reason tested before it does.
    if (reason === e.hint) return reason;
    if (probe(e, byStatus)) return reason;
  }
  return failedStartTls(e) ? "failedstarttls" : undefined;
}

function secondPass(e: Context, byStatus: BounceReason | undefined): BounceReason | undefined {
  // A reader's tentative reason that no first-pass test overruled stands.
  if (e.hint !== undefined && e.hint !== "undefined" && e.hint !== "onhold") return e.hint;
  const xunix = e.diagnosticType?.toLowerCase().startsWith("x-unix") ?? false;
  if (!xunix || byStatus === undefined || RECHECKED.has(byStatus)) {
    for (const reason of SECOND_PASS) if (e.said(PHRASES[reason]!)) return reason;
  }
  return byStatus;
}

function lastResort(e: Context): BounceReason | undefined {
  const bySubject = subjectReason(e.status);
  if (bySubject !== undefined) return bySubject;
  if (e.diagnosticType?.toLowerCase().startsWith("x-unix")) return "mailererror";
  const reply = Number(e.replyCode);
  if ((reply > 400 && reply < 408) || (reply > 500 && reply < 508)) return "syntaxerror";
  if (e.action === "delayed") return "expired";
  if (e.command === "EHLO" || e.command === "HELO") return "blocked";
  return undefined;
}
