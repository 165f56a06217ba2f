import type { Phrase } from "./match.js";

/**
 * What servers say when the message itself is refused: spam and virus filters, content and
 * policy rules, malformed headers, size limits. Servers' own words, collected from real bounces
 * (Sisimai's tables as guide).
 */

/** A spam filter refused the message. */
export const SPAM_DETECTED: readonly Phrase[] = [
  " - spam",
  /\/\/(?:www\.spamhaus\.org|dsbl\.org|mail\.163\.com)\/help\/help_spam_16\.htm/,
  "554 5.7.0 reject, id=",
  "appears to be unsolicited",
  "blacklisted url in message",
  "block for spam",
  "blocked by policy: no spam please",
  "blocked by spamassassin",
  "blocked for abuse. see http://att.net/blocks",
  "cannot be forwarded because it was detected as spam",
  "considered unsolicited bulk e-mail (spam) by our mail filters",
  "content filter rejection",
  "cyberoam anti spam engine has identified this email as a bulk email",
  "denied due to spam list",
  "high probability of spam",
  "is classified as spam and is rejected",
  "listed in work.drbl.imedia.ru",
  "the mail server detected your message as spam and has prevented delivery.",
  "mail content denied",
  "may consider spam",
  "message considered as spam or virus",
  "message contains spam or virus",
  "message content rejected",
  "message detected as spam",
  "message filtered",
  "message looks like spam",
  "message is being rejected as it seems to be a spam",
  /message refused by (?:mailmarshal|trustwave seg) spamprofiler/,
  "message rejected as spam",
  "message rejected because of unacceptable content",
  "message rejected due to suspected spam content",
  "message rejected for policy reasons",
  "message was rejected for possible spam/virus content",
  "our email server thinks this email is spam",
  "our system has detected that this message is ",
  "probable spam",
  "reject bulk.advertising",
  "rejected: spamassassin score ",
  "rejected - bulk email",
  "rejecting banned content",
  "rejecting mail content",
  "related to content with spam-like characteristics",
  "sender domain listed at ",
  "sending address not accepted due to spam filter",
  "spam blocked",
  "spam check",
  "spam content matched",
  "spam detected",
  "spam email",
  "spam message rejected.",
  "spam not accepted",
  "spam refused",
  "spam rejection",
  "spam score ",
  "spambouncer identified spam",
  "spamming not allowed",
  "too many spam complaints",
  "too much spam.",
  "the email message was detected as spam",
  "the message has been rejected by spam filtering engine",
  "the message was rejected due to classification as bulk mail",
  "the content of this message looked like spam",
  "this message appears to be spam",
  "this message has been identified as spam",
  "this message has been scored as spam with a probability",
  "this message was classified as spam",
  "this message was rejected by recurrent pattern detection system",
  "transaction failed spam message not queued",
  "we dont accept spam",
  "your email appears similar to spam we have received before",
  "your email breaches local uribl policy",
  "your email had spam-like ",
  /your email (?:is considered|is probably|was detected as) spam/,
  "your message as spam and has prevented delivery",
  "your message has been temporarily blocked by our filter",
  "your message has been rejected because it appears to be spam",
  "your message has triggered a spam block",
  "your message may contain the spam contents",
  "your message failed several antispam checks",
  ["greylisted", " please try again in"],
  ["mail score (", " over "],
  ["mail rejete. mail rejected. ", "506"],
  ["our filters rate at and above ", " percent probability of being spam"],
  ["rejected by ", " (spam)"],
  ["rejected due to spam ", "classification"],
  ["rejected due to spam ", "content"],
  ["rule imposed as ", " is blacklisted on"],
  ["spam ", " exceeded"],
  ["this message scored ", " spam points"],
];

/** A virus scanner refused the message. */
export const VIRUS_DETECTED: readonly Phrase[] = [
  "it has a potentially executable attachment",
  "the message was rejected because it contains prohibited virus or spam content",
  "this form of attachment has been used by recent viruses or other malware",
  "virus detected",
  "virus phishing/malicious_url detected",
  "your message was infected with a virus",
];

/** The receiver's policy refuses this kind of message or sender. */
export const POLICY_VIOLATION: readonly Phrase[] = [
  "an illegal attachment on your message",
  "because the recipient is not accepting mail with ",
  "by non-member to a members-only list",
  "closed mailing list",
  "denied by policy",
  /(?:email|message) not accepted for policy reasons/,
  "email rejected due to security policies",
  "header are not accepted",
  "header error",
  "local policy violation",
  "message bounced due to organizational settings",
  "message given low priority",
  "message rejected due to local policy",
  "messages with multiple addresses",
  "rejected for policy reasons",
  "protocol violation",
  "the email address used to send your message is not subscribed to this group",
  "the message was rejected by organization policy",
  "this message was blocked because its content presents a potential",
  "we do not accept messages containing images or other attachments",
  "you're using a mass mailer",
  ["you have exceeded the", "allowable number of posts without solving a captcha"],
];

/** The message's headers or MIME structure are refused. */
export const CONTENT_ERROR: readonly Phrase[] = [
  "duplicate header",
  "header size exceeds maximum permitted",
  "improper use of 8-bit data in message header",
  "message header size, or recipient list, exceeds policy limit",
  "message mime complexity exceeds the policy maximum",
  "routing loop detected -- too many received: headers",
  /this message contain (?:invalid mime headers|improperly-formatted binary content)/,
  "this message contain text that uses unnecessary base64 encoding",
];

/** The message does not follow RFC 5322 (duplicate or multiple single-instance headers). */
export const NOT_COMPLIANT_RFC: readonly Phrase[] = [
  "duplicate header",
  "this message is not rfc 5322 compliant",
  "messages with multiple addresses in from",
  "https://support.google.com/mail/?p=rfcmessagenoncompliant",
  [" multiple ", " header"],
];

/** The message is too big for the receiving system. */
export const MESG_TOO_BIG: readonly Phrase[] = [
  /exceeded (?:maximum inbound|the maximum incoming) message size/,
  "line limit exceeded",
  "max message size exceeded",
  "message file too big",
  "message length exceeds administrative limit",
  /message size exceeds (?:fixed limit|fixed maximum message size|maximum value)/,
  "message too big",
  "message too large for this ",
  "size limit",
  "taille limite du message atteinte",
];

/** The message exceeds a limit the recipient's mailbox sets. */
export const EXCEED_LIMIT: readonly Phrase[] = ["message header size exceeds limit", "message too large"];
