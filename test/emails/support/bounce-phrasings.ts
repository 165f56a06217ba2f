import type { BounceReason, RecipientFacts } from "../../../src/emails/index.js";

/**
 * Diagnostics as real servers write them (after Postfix, Sendmail, Exim, Exchange/Office 365,
 * Gmail, Yahoo, Apple, Orange, Dovecot…), each with the reason, type and sub-type Sisimai's rules
 * give: one or more per reason. Used by bounce-classification.test.ts.
 */
export type Case = [label: string, facts: RecipientFacts, reason: BounceReason, type?: string, subType?: string];
export const failed = (
  status: string | undefined,
  diagnostic: string,
  more: Partial<RecipientFacts> = {},
): RecipientFacts => ({
  action: "failed",
  ...(status === undefined ? {} : { status }),
  diagnostic,
  ...more,
});

export const CASES: Case[] = [
  [
    "Postfix local recipient table",
    failed("5.1.1", "550 5.1.1 <ann@example.org>: Recipient address rejected: User unknown in local recipient table"),
    "userunknown",
    "Permanent",
    "NoEmail",
  ],
  [
    "Gmail, account does not exist",
    failed(
      "5.1.1",
      "550-5.1.1 The email account that you tried to reach does not exist. Please try 550-5.1.1 double-checking the recipient's email address",
    ),
    "userunknown",
    "Permanent",
    "NoEmail",
  ],
  [
    "no such user, refused at RCPT",
    failed("5.0.0", "550 No such user here", { command: "RCPT" }),
    "userunknown",
    "Permanent",
  ],
  [
    "the same words after DATA: a filter",
    failed("5.0.0", "550 No such user here", { command: "DATA" }),
    "filtered",
    "Transient",
  ],
  [
    "Exchange directory lookup",
    failed("5.1.10", "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"),
    "userunknown",
    "Permanent",
  ],
  [
    "Postfix, domain without DNS",
    failed(
      "5.1.2",
      "Host or domain name not found. Name service error for name=nowhere.invalid type=A: Host not found",
    ),
    "hostunknown",
    "Permanent",
    "NoEmail",
  ],
  [
    "moved mailbox",
    failed("5.1.6", "550 5.1.6 recipient no longer on server: ann@example.org"),
    "hasmoved",
    "Permanent",
  ],
  [
    "null MX, permanent",
    failed("5.1.10", "556 5.1.10 Recipient address has null MX"),
    "notaccept",
    "Permanent",
    "General",
  ],
  [
    "null MX, said as a temporary DNS error",
    failed(
      "4.0.0",
      "DNS Error: DNS type 'mx' lookup of example.org responded with code NOERROR The domain example.org doesn't receive email according to the administrator: returned Null MX",
    ),
    "notaccept",
    "Transient",
  ],
  [
    "Gmail over quota",
    failed(
      "5.2.2",
      "552-5.2.2 The recipient's inbox is out of storage space. Please direct the recipient to 552 5.2.2 https://support.google.com/mail/?p=OverQuotaTemp",
    ),
    "mailboxfull",
    "Transient",
    "MailboxFull",
  ],
  [
    "Dovecot quota",
    failed("4.2.2", "452 4.2.2 <ann@example.org> Quota exceeded (mailbox for user is full)"),
    "mailboxfull",
    "Transient",
    "MailboxFull",
  ],
  [
    "Sendmail size limit",
    failed("5.3.4", "552 5.3.4 Message size exceeds fixed limit"),
    "mesgtoobig",
    "Transient",
    "MessageTooLarge",
  ],
  [
    "recipient's size limit",
    failed("5.2.3", "552 5.2.3 Message length exceeds administrative limit"),
    "exceedlimit",
    "Transient",
    "MessageTooLarge",
  ],
  [
    "Gmail disabled account",
    failed("5.2.1", "550 5.2.1 The email account that you tried to reach is disabled."),
    "suspend",
    "Transient",
  ],
  [
    "Spamhaus listing",
    failed("5.7.1", "554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org"),
    "blocked",
    "Transient",
    "General",
  ],
  [
    "Office 365 banned IP",
    failed("5.7.606", "550 5.7.606 Access denied, banned sending IP [192.0.2.1]."),
    "blocked",
    "Transient",
  ],
  [
    "content filter after DATA",
    failed("5.7.1", "554 5.7.1 Message rejected as spam by Content Filtering", { command: "DATA" }),
    "spamdetected",
    "Transient",
    "ContentRejected",
  ],
  [
    "virus scanner",
    failed("5.7.1", "554 5.7.1 Virus detected: Eicar-Test-Signature", { command: "DATA" }),
    "virusdetected",
    "Transient",
    "AttachmentRejected",
  ],
  [
    "Gmail reverse DNS",
    failed(
      "5.7.25",
      "550-5.7.25 [192.0.2.1] The IP address sending this message does not have a 550-5.7.25 PTR record setup",
    ),
    "requireptr",
    "Transient",
  ],
  [
    "Gmail DMARC",
    failed(
      "5.7.26",
      "550-5.7.26 Unauthenticated email from example.com is not accepted due to 550-5.7.26 domain's DMARC policy.",
    ),
    "authfailure",
    "Transient",
  ],
  [
    "Apple DMARC",
    failed("5.7.1", "554 5.7.1 Your message was rejected due to example.com's DMARC policy."),
    "authfailure",
    "Transient",
  ],
  [
    "Gmail reputation",
    failed(
      "5.7.1",
      "550-5.7.1 Our system has detected that this message is likely suspicious due to the very low reputation of the sending IP address.",
    ),
    "badreputation",
    "Transient",
  ],
  [
    "connection limit",
    failed("4.7.0", "421 4.7.0 Too many concurrent SMTP connections from this IP address; please try again later."),
    "toomanyconn",
    "Transient",
  ],
  [
    "Postfix rate limit",
    failed("4.7.1", "451 4.7.1 <mx.example.org[192.0.2.2]>: Client host rejected: Please try again slower"),
    "speeding",
    "Transient",
  ],
  ["relay denied", failed("5.7.1", "554 5.7.1 <ann@example.org>: Relay access denied"), "norelaying", "Transient"],
  ["authentication required", failed("5.7.0", "530 5.7.0 Authentication required"), "securityerror", "Transient"],
  [
    "local policy",
    failed("5.7.1", "550 5.7.1 Message rejected due to local policy"),
    "policyviolation",
    "Transient",
    "ContentRejected",
  ],
  [
    "sender domain refused at MAIL",
    failed("5.1.8", "553 5.1.8 <noreply@sender.example>: Sender address rejected: Domain not found", {
      command: "MAIL",
    }),
    "rejected",
    "Transient",
  ],
  [
    "access denied at MAIL FROM",
    failed("5.7.1", "550 5.7.1 Access denied", { command: "MAIL" }),
    "rejected",
    "Transient",
  ],
  ["recipient's filter", failed("5.2.0", "550 5.2.0 Message rejected due to user rules"), "filtered", "Transient"],
  ["queue lifetime over, no words", { action: "failed", status: "4.4.7" }, "expired", "Transient"],
  [
    "connection timed out",
    failed("4.4.1", "connect to mx.example.org[192.0.2.3]:25: Connection timed out"),
    "expired",
    "Transient",
  ],
  [
    "malformed DNS reply, not an unknown host",
    failed("5.4.4", "Name service error for name=example.org type=MX: Malformed or unexpected name server reply"),
    "networkerror",
    "Transient",
  ],
  ["receiver's own trouble", failed("4.3.0", "451 4.3.0 Local error in processing"), "systemerror", "Transient"],
  ["receiver's disk", failed("4.3.1", "452 4.3.1 Insufficient system storage"), "systemfull", "Transient"],
  [
    "local program",
    failed("5.0.0", "command died with status 1: /usr/bin/filter", { diagnosticType: "X-Unix" }),
    "mailererror",
    "Transient",
  ],
  [
    "8-bit header",
    failed("5.6.0", "550 5.6.0 Improper use of 8-bit data in message header"),
    "contenterror",
    "Transient",
    "ContentRejected",
  ],
  ["bad command sequence", failed("5.5.1", "503 5.5.1 Error: need RCPT command"), "syntaxerror", "Transient"],
  [
    "Gmail RFC 5322",
    failed("5.7.1", "550-5.7.1 This message is not RFC 5322 compliant. There are multiple Subject 550-5.7.1 headers."),
    "notcompliantrfc",
    "Transient",
    "ContentRejected",
  ],
  [
    "STARTTLS required",
    failed("5.7.0", "530 5.7.0 Must issue a STARTTLS command first"),
    "failedstarttls",
    "Transient",
  ],
  [
    "Orange invalid recipient",
    failed("5.5.0", "550 5.5.0 Adresse destinataire invalide. Invalid recipient. LPN007_416"),
    "userunknown",
    "Permanent",
  ],
  ["words that name nothing", failed("5.0.0", "550 Rejected"), "onhold", "Transient"],
  ["nothing at all", { action: "failed" }, "undefined", "Undetermined", "General"],
  ["relayed", { action: "relayed", status: "2.0.0", diagnostic: "250 2.0.0 OK" }, "delivered"],
];
