import { preferredStatus, quotedStatus, replyCodeIn, smtpCommandIn } from "./classification/codes.js";
import { decideReason } from "./classification/decide.js";
import { enhancedStatus } from "./report-fields.js";
import type { BounceReason, BounceSummary, DeliveryAction, DeliveryReport } from "./reports.js";

/**
 * What one report says of one recipient, before classification: every report source (DSN,
 * plain-text bounce reader, provider webhook) gathers these facts and asks `classifyRecipient`,
 * so every source is classified by the same rules.
 */
export interface RecipientFacts {
  action?: DeliveryAction;
  /** The enhanced status the report gives (`5.1.1`), if any. */
  status?: string;
  /** The SMTP reply code the report quotes (`550`), if any. */
  replyCode?: string;
  /** The remote server's words. */
  diagnostic?: string;
  /** The Diagnostic-Code's type (`smtp`, `X-Unix`…), when the report gives one. */
  diagnosticType?: string;
  /** The SMTP command that was refused (`RCPT`, `DATA`…), if known. */
  command?: string;
  /**
   * A reason the reader found itself (its own vendor phrases), if any. A firm one wins over the
   * generic tables; a tentative one (`userunknown`, `hostunknown`, `expired`, `networkerror`,
   * `systemerror`, `securityerror`, `onhold`, `undefined`) gives way to a reason the tests that
   * come before it find (a "user unknown" reader's guess beside "mailbox full" words).
   */
  reason?: BounceReason;
}

export interface Classification {
  /** The status, refined from the diagnostic where the report's is missing, x.0.0 or of another class. */
  status?: string;
  /** The SMTP reply code, given or quoted in the diagnostic. */
  replyCode?: string;
  /** The refused SMTP command, given or named in the diagnostic. */
  command?: string;
  reason: BounceReason;
  type: BounceSummary["type"];
  subType: string;
}

/**
 * Reasons that say something about the sender (its IP, domain, authentication, content or
 * sending rate) and nothing about the recipient's address: they never suppress the address.
 */
export const SENDER_SIDE_REASONS: ReadonlySet<BounceReason> = new Set<BounceReason>([
  "blocked",
  "securityerror",
  "authfailure",
  "requireptr",
  "badreputation",
  "failedstarttls",
  "notcompliantrfc",
  "norelaying",
  "policyviolation",
  "spamdetected",
  "virusdetected",
  "contenterror",
  "rejected",
  "toomanyconn",
  "speeding",
]);

/** True when the reason may count against the recipient's address (for the suppression policy). */
export function isRecipientCaused(reason: BounceReason | undefined): boolean {
  return reason === undefined || !SENDER_SIDE_REASONS.has(reason);
}

/**
 * Classifies one recipient's report, as Sisimai (the reference bounce classifier) does:
 *
 * 1. the status: the report's, or the one its words quote when that is more precise or agrees
 *    with the quoted SMTP reply code (`4.5.0` beside "550 5.5.0 …" is `5.5.0`); with neither, the
 *    reply code's class (`5.0.0` for a bare 550);
 * 2. the reason: `delivered` for delivered, relayed and expanded; a reader's own reason when it
 *    is a firm one; else the words of local delivery agents and mailbox providers, the status and
 *    the words tested reason by reason (classification/decide.ts), the status alone, the command;
 *    `onhold` when words were given but name nothing, `undefined` when nothing was given;
 * 3. hard or soft by reason: Permanent for `userunknown`, `hostunknown`, `hasmoved`, and
 *    `notaccept` unless the server said it was temporary; Undetermined for `undefined`; every
 *    other reason Transient (a full mailbox, a blocklisted IP, a policy: the address is fine);
 * 4. SES's sub-type for the reason, with SES's type for it.
 */
export function classifyRecipient(facts: RecipientFacts): Classification {
  const words = facts.diagnostic ?? "";
  const given = enhancedStatus(facts.status);
  const quoted = quotedStatus(words);
  const quotedReply = replyCodeIn(words, (quoted ?? given)?.[0]);
  const replyCode = validReply(facts.replyCode) ?? quotedReply;
  const refined = preferredStatus(given, quoted, replyCode);
  const command = facts.command?.toUpperCase() ?? smtpCommandIn(words);
  const text = sweep(words, quotedReply);
  const reason = decideReason({
    text,
    ...definedFields({ status: refined, replyCode, command, action: facts.action }),
    ...definedFields({ diagnosticType: facts.diagnosticType }),
    ...definedFields({ hint: facts.reason }),
  });
  // Without any enhanced code, the reply's class is the status's, as Postfix writes 5.0.0 for a bare 550
  // (after the reason is decided: the tests read only what the server said). A 2xx reply quoted in
  // a failure or a delay says nothing of the failure's class.
  const failing = facts.action === "failed" || facts.action === "delayed";
  const status = refined ?? (replyCode && !(failing && replyCode[0] === "2") ? `${replyCode[0]}.0.0` : undefined);
  const type = hardOrSoft(reason, status, replyCode, text);
  return { ...definedFields({ status, replyCode, command }), reason, type, subType: subTypeOf(reason, type) };
}

function validReply(code: string | undefined): string | undefined {
  return code !== undefined && /^[245]\d\d$/.test(code.trim()) ? code.trim() : undefined;
}

/**
 * The words as the phrase tables read them: lower case, one space for any white space, and a
 * multi-line reply's repeated `550-5.7.1 ` prefixes taken out so phrases match across its lines.
 */
function sweep(words: string, reply: string | undefined): string {
  let text = words.toLowerCase().replace(/\s+/g, " ").trim();
  if (reply !== undefined && text.includes(`${reply}-`)) {
    const status = quotedStatus(text);
    for (const prefix of [`${reply}-${status} `, `${reply} ${status} `, `${reply}-`]) {
      text = text.split(prefix).join("");
    }
    text = `${reply} ${status ?? ""} ${text}`.replace(/\s+/g, " ");
  }
  return text;
}

/** Permanent, Transient or Undetermined, as the contract says (see classifyRecipient). */
function hardOrSoft(reason: BounceReason, status: string | undefined, reply: string | undefined, text: string) {
  if (reason === "undefined") return "Undetermined" as const;
  if (reason === "userunknown" || reason === "hostunknown" || reason === "hasmoved") return "Permanent" as const;
  if (reason !== "notaccept") return "Transient" as const;
  const cls = status?.[0] ?? reply?.[0];
  if (cls === "5") return "Permanent" as const;
  const temporary = cls === "4" || / temporar| persistent/.test(` ${text}`);
  return temporary ? ("Transient" as const) : ("Permanent" as const);
}

/** SES's bounce sub-types, each with the type SES gives it. */
function subTypeOf(reason: BounceReason, type: BounceSummary["type"]): string {
  if (type === "Permanent") return reason === "notaccept" ? "General" : "NoEmail";
  if (type === "Undetermined") return "General";
  if (reason === "mailboxfull") return "MailboxFull";
  if (reason === "mesgtoobig" || reason === "exceedlimit") return "MessageTooLarge";
  if (reason === "virusdetected") return "AttachmentRejected";
  const content = ["spamdetected", "contenterror", "notcompliantrfc", "policyviolation"];
  return content.includes(reason) ? "ContentRejected" : "General";
}

/** The given fields without those that are undefined (the report types forbid explicit undefined). */
export function definedFields<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) out[name] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** A provider's own verdict on a bounce (SES's bounceType/bounceSubType, SendGrid's event…). */
export interface ProviderVerdict {
  type: BounceSummary["type"];
  subType: string;
}

const SUPPRESSION_SUB_TYPES = new Set(["Suppressed", "OnAccountSuppressionList"]);

/**
 * A provider bounce's summary: classified from the words like every other report, the provider's
 * own verdict taken only where the words name nothing (`undefined`) or where the provider did not
 * send at all because its suppression list holds the address (SES `Suppressed`, a SendGrid drop):
 * the provider will refuse that address again, whatever its words say.
 */
export function providerBounce(classified: Classification, verdict: ProviderVerdict, message: string): BounceSummary {
  const own = classified.reason === "undefined" || SUPPRESSION_SUB_TYPES.has(verdict.subType);
  const { type, subType } = own ? verdict : classified;
  return { type, subType, reason: classified.reason, message };
}

/** The report fields a classification fills (status, reply code, command, reason), none undefined. */
export function classifiedFields(
  c: Classification,
): Pick<DeliveryReport, "status" | "replyCode" | "command" | "reason"> {
  return { ...definedFields({ status: c.status, replyCode: c.replyCode, command: c.command }), reason: c.reason };
}

/** `smtp; 550 5.1.1 …` → `550 5.1.1 …`: a Diagnostic-Code's type is not the server's words. */
export function withoutDiagnosticType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(";");
  const type = semicolon > 0 ? value.slice(0, semicolon).trim() : "";
  return type !== "" && /^[a-z][a-z0-9-]*$/i.test(type) ? value.slice(semicolon + 1).trim() : value;
}
