import type { BounceReason } from "../../reports.js";
import type { Phrase } from "./match.js";

/**
 * Mailbox providers' own error labels and wordings: they name the reason more precisely than the
 * status code they send with them (Orange's `OFR_416`, Facebook's `RCP-P1`, Cox's `AUP#CXBL`,
 * i.ua's `/err/3/`…). They are distinctive enough to be read without knowing which host answered.
 * Checked before the generic tables, in this order; after Sisimai's per-host modules. A third
 * element restricts an entry to statuses of that class.
 */
export const VENDOR_PHRASES: readonly (readonly [BounceReason, readonly Phrase[], ("4" | "5")?])[] = [
  // KDDI (au, ezweb): an empty address before the colon is its content filter, not an unknown user.
  ["filtered", ["550 : user unknown"]],
  ["userunknown", [/@(?:ezweb\.ne\.jp|au\.com)>: user unknown/]],
  // Orange and La Poste (France): the number after OFR_/LPN_ labels the reason.
  ["userunknown", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:416|418)\b/]],
  ["mailboxfull", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_417\b/]],
  ["suspend", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:420|426)\b/]],
  ["blocked", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:101|102|103|510|999)\b/]],
  ["toomanyconn", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_104\b/]],
  ["securityerror", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:305|402)\b/]],
  ["authfailure", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:401|517)\b/, "spf/dns de votre nom de domaine"]],
  ["rejected", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_(?:403|405|415|421)\b/]],
  ["systemerror", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_505\b/]],
  ["spamdetected", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_506\b/]],
  ["mesgtoobig", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_514\b/]],
  ["policyviolation", [/\b(?:ofr|lpn|lpnaaa|ouk)[0-9]*_630\b/]],
  // Facebook's response codes.
  ["userunknown", [/\b(?:rcp-p1|int-p[134])\b/]],
  ["filtered", [/\brcp-p[23]\b/]],
  ["suspend", [/\brcp-t4\b/]],
  ["blocked", [/\bpol-(?:p[1-4]|t[1-3])\b/]],
  ["toomanyconn", [/\b(?:con-t[1-4]|msg-t1)\b/]],
  ["mesgtoobig", [/\b(?:msg-p1|int-p2)\b/]],
  ["requireptr", [/\bdns-(?:p3|t2)\b/]],
  ["rejected", [/\bdns-(?:p[12]|t1)\b/]],
  // Cox's AUP# codes.
  ["blocked", [/aup#(?:cxbl|cdrbl|ipbl\d+)\b/, "cox too many bad commands from", "too many invalid recipients"]],
  ["requireptr", [/aup#cxdns\b/, "rejected - no rdns"]],
  ["authfailure", [/aup#cxsndr\b/]],
  ["toomanyconn", [/aup#(?:cxcnct|cxmxrt)\b/]],
  ["securityerror", [/aup#(?:cxthrt|cxmj)\b/]],
  ["spamdetected", [/aup#urlbl\d+\b/]],
  // i.ua: /err/<n>/ links.
  ["userunknown", [".i.ua/err/2/"]],
  ["suspend", [".i.ua/err/3/"]],
  ["mailboxfull", [".i.ua/err/4/"]],
  ["blocked", [/\.i\.ua\/err\/[79]\//]],
  // Tencent (QQ) frequency limits and Yahoo's wordings.
  ["toomanyconn", [/(?:ip|domain|sender|connection) frequency limited/, "max message per connection reached"]],
  ["speeding", ["user is receiving mail too quickly"]],
  ["userunknown", ["dd this user doesn't have a "]],
  ["authfailure", ["yahoo requires all senders to authenticate with either spf or dkim", "spf check failed"]],
  // Microsoft and Outlook.com: their directory answers for unknown recipients.
  ["hostunknown", ["the mail could not be delivered to the recipient because the domain is not reachable"]],
  [
    "userunknown",
    [
      /requested action not taken: mailbox unavailable \(-?\d+:\d+:-?\d+\)/,
      "resolver.adr.recipientnotfound",
      ["recipient address rejected: access denied", ".outlook.com]"],
    ],
  ],
  ["blocked", ["banned sending ip", "not currently accepting mail from your ip"]],
  // Google Workspace's DNS reports: a domain without mail, or one its resolver could not find.
  ["notaccept", ["null mx"]],
  ["hostunknown", [/dns error: .* responded with code nxdomain/], "5"],
  ["networkerror", [/dns error: .* (?:responded with code nxdomain|had no relevant answers)/]],
  // GoDaddy's and Yahoo's sender limits.
  ["speeding", ["has sent to too many recipients this hour"]],
  ["rejected", ["temporarily deferred due to unexpected volume or user complaints"]],
  // Spectrum (Charter): AUP#<4 digits>.
  ["toomanyconn", [/aup#[a-z]*-?13[0-4]\d\b/]],
  ["speeding", [/aup#[a-z]*-?1(?:3[5-9]\d|4\d\d|540|550|580)\b/]],
  ["requireptr", [/aup#[a-z]*-?11[0-5]\d\b/]],
];

/** Local delivery agents (the last hop's program) and what each says for each reason. */
export const LOCAL_AGENTS: readonly {
  says: readonly Phrase[];
  reasons: readonly [BounceReason, readonly Phrase[]][];
}[] = [
  {
    says: [["your message to <", "> was automatically rejected:"]], // Dovecot's LDA and LMTP
    reasons: [
      ["mailboxfull", ["not enough disk space", "quota exceeded"]],
      ["userunknown", ["mailbox doesn't exist: "]],
    ],
  },
  {
    says: ["mail.local: "],
    reasons: [
      ["mailboxfull", ["disc quota exceeded", "mailbox full or quota exceeded"]],
      ["systemerror", ["temporary file write error"]],
      ["userunknown", [": invalid mailbox path", ": unknown user:", ": user missing home directory", ": user unknown"]],
    ],
  },
  {
    says: ["procmail: ", "/procmail "],
    reasons: [
      ["mailboxfull", ["quota exceeded while writing", "user over quota"]],
      ["systemerror", ["service unavailable"]],
      ["systemfull", ["no space left to finish writing"]],
    ],
  },
  {
    says: ["maildrop: "],
    reasons: [
      ["mailboxfull", ["maildir over quota."]],
      ["userunknown", ["cannot find system user", "invalid user specified."]],
    ],
  },
  {
    says: ["vdelivermail: "],
    reasons: [
      ["filtered", ["user does not exist, but will deliver to "]],
      ["mailboxfull", ["domain is over quota", "user is over quota"]],
      ["suspend", ["account is locked email bounced"]],
      ["userunknown", ["sorry, no mailbox here by that name."]],
    ],
  },
  {
    says: ["vdeliver: "],
    reasons: [
      ["mailboxfull", ["delivery failed due to system quota violation"]],
      [
        "userunknown",
        [/invalid or unknown (?:base user or domain|virtual user)/, "user name does not refer to a virtual user"],
      ],
    ],
  },
];
