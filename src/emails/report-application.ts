import type { Clock } from "../clock.js";
import { FlagpostError } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { isStorableText } from "../input-policy.js";
import type { EmailEvent, EmailRecord, EmailStatus, Storage, SuppressionRecord } from "../storage/index.js";
import { parseIsoInstant } from "../time.js";
import { parseInput } from "../validation.js";
import { applyTransition } from "./lifecycle.js";
import { emailRecipients } from "./message.js";
import { type DeliveryReport, deliveryReportSchema } from "./reports.js";
import { emailDomainEvent, suppressionDomainEvent, transitionDomainEvents } from "./webhook-events.js";

/**
 * What applying one report did:
 * - `applied`: the email changed status (`status` is the new one);
 * - `recorded`: an event was added and the status kept (a delay, or one of several recipients);
 * - `ignored`: the email's status does not allow it (a report repeated, or out of order);
 * - `unmatched`: no email matched; the report was stored for people to look at.
 * `suppressed` lists the addresses this report put on the suppression list (or found there).
 */
export interface ReportResult {
  outcome: "applied" | "recorded" | "ignored" | "unmatched";
  emailId?: string;
  status?: EmailStatus;
  suppressed?: string[];
  reason?: string;
}

/** How far in the future a report's time may be (clock skew between systems). */
const MAX_REPORT_AHEAD_MS = 24 * 60 * 60 * 1000;
/** A report is tried this often when the email changes between reading it and storing the report. */
const REPORT_ROUNDS = 3;
/** Outcomes of one recipient that end its delivery. */
const FINAL = new Set(["delivered", "bounced"]);

/** `<id@domain>` in any case, with or without the brackets, as one comparable text. */
function normalMessageId(text: string): string {
  const trimmed = text.trim().toLowerCase();
  return trimmed.startsWith("<") ? trimmed : `<${trimmed}>`;
}

/** The email id a flagpost Message-ID carries (`<id@domain>`), if it has that form. */
function idOfMessageId(messageId: string): string | undefined {
  const normal = normalMessageId(messageId);
  const at = normal.indexOf("@");
  return at > 1 && normal.endsWith(">") ? normal.slice(1, at) : undefined;
}

/** A bounce is hard unless the report says it is transient or undetermined, or its status is 4.x.x. */
function isPermanent(report: DeliveryReport): boolean {
  if (report.bounce) return report.bounce.type === "Permanent";
  return !report.status?.startsWith("4");
}

/** Every envelope recipient the email was handed on for: the newest `sent` event's `accepted`, else its addresses. */
function recipientsOf(email: EmailRecord, events: EmailEvent[]): string[] {
  const sent = events.findLast((e) => e.type === "sent" || (e.type === "delivered" && e.detail?.source !== "report"));
  const accepted = sent?.detail?.accepted;
  if (Array.isArray(accepted) && accepted.length > 0) return [...new Set(accepted.map((a) => String(a).toLowerCase()))];
  return emailRecipients(email);
}

/** The recipients that already have a final report (delivered or bounced), with it. */
function reportedOutcomes(events: EmailEvent[]): Map<string, string> {
  const outcomes = new Map<string, string>();
  for (const event of events) {
    const recipient = event.detail?.recipient;
    if (event.detail?.source !== undefined && typeof recipient === "string" && FINAL.has(event.type))
      outcomes.set(recipient, event.type);
  }
  return outcomes;
}

/**
 * Applies delivery reports (docs/emails.md, "Reports from the mail system") along the lifecycle:
 * finds the email (VERP id, then the original Message-ID, then the provider's id), moves it, adds
 * hard-bounced and complaining addresses to the suppression list, and stores what matched nothing.
 */
export class ReportApplier {
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  /**
   * One result per report, in order. Reports that match no email are stored, never refused; a
   * report that is not a DeliveryReport at all is a caller's mistake (`validation_error`, before
   * anything is applied); a storage failure rejects (the sender of the report should retry).
   */
  async apply(reports: readonly DeliveryReport[]): Promise<ReportResult[]> {
    const checked = reports.map((report, index) => parseInput(deliveryReportSchema, report, [index]));
    const results: ReportResult[] = [];
    const unmatched: DeliveryReport[] = [];
    for (const report of checked) {
      const email = await this.#match(report);
      if (!email) {
        unmatched.push(report);
        results.push({ outcome: "unmatched", reason: "no email has this id, Message-ID or provider message id" });
      } else {
        results.push(await this.#applyTo(email, report));
      }
    }
    if (unmatched.length > 0) {
      const receivedAt = new Date(this.#clock.now()).toISOString();
      await this.#storage.deliveryReports.recordUnmatchedReports(
        unmatched.map((report) => ({
          id: uuidv7(this.#clock.now()),
          receivedAt,
          reason: "no email has this id, Message-ID or provider message id",
          report,
        })),
      );
    }
    return results;
  }

  async #match(report: DeliveryReport): Promise<EmailRecord | undefined> {
    const emails = this.#storage.emails;
    if (report.emailId !== undefined && isStorableText(report.emailId)) {
      const email = await emails.getEmail(report.emailId.toLowerCase());
      if (email) return email;
    }
    if (report.messageId !== undefined) {
      const id = idOfMessageId(report.messageId);
      const email = id !== undefined && isStorableText(id) ? await emails.getEmail(id) : undefined;
      if (email && normalMessageId(email.messageId) === normalMessageId(report.messageId)) return email;
    }
    if (report.providerMessageId !== undefined && isStorableText(report.providerMessageId))
      return emails.findEmailByProviderMessageId(report.providerMessageId);
    return undefined;
  }

  async #applyTo(first: EmailRecord, report: DeliveryReport): Promise<ReportResult> {
    const now = this.#clock.now();
    const at = this.#reportTime(report, now);
    const nowIso = new Date(now).toISOString();
    let email = first;
    for (let round = 0; round < REPORT_ROUNDS; round += 1) {
      const events = await this.#storage.emails.listEmailEvents(email.id);
      const result = await this.#tryApply(email, events, report, at, nowIso);
      if (result) {
        const suppressed = await this.#suppress(email, events, report, nowIso);
        return suppressed.length > 0 ? { ...result, suppressed } : result;
      }
      // The email changed between reading and writing (the worker recorded its send): read it again.
      const again = await this.#storage.emails.getEmail(email.id);
      if (!again) break;
      email = again;
    }
    throw new FlagpostError("unavailable", `Email "${first.id}" kept changing while a report was applied; try again`);
  }

  /** The report's time when it gives a sane one (not more than 24 h ahead), else now. */
  #reportTime(report: DeliveryReport, now: number): string {
    const ms = report.occurredAt === undefined ? undefined : parseIsoInstant(report.occurredAt);
    return new Date(ms !== undefined && ms <= now + MAX_REPORT_AHEAD_MS ? ms : now).toISOString();
  }

  /** One attempt; undefined when the email changed meanwhile (the conditional write did not apply). */
  async #tryApply(
    email: EmailRecord,
    events: EmailEvent[],
    report: DeliveryReport,
    at: string,
    nowIso: string,
  ): Promise<ReportResult | undefined> {
    const detail = reportDetail(report);
    const keep = async (type: "delivered" | "bounced" | "delivery_delayed"): Promise<ReportResult | undefined> => {
      if (email.status !== "queued" && email.status !== "sent")
        return { outcome: "ignored", emailId: email.id, status: email.status, reason: `the email is ${email.status}` };
      const stored = await this.#storage.emails.transitionEmail(email.id, {
        from: [email.status],
        to: email.status,
        event: { type, at, detail },
        events: type === "delivery_delayed" ? [emailDomainEvent("email.delivery_delayed", email, nowIso)] : [],
      });
      return stored && { outcome: "recorded", emailId: email.id, status: stored.status };
    };
    if (report.type === "auto_replied")
      return { outcome: "ignored", emailId: email.id, status: email.status, reason: "an auto-reply changes nothing" };
    if (report.type === "delayed" || (report.type === "bounced" && !isPermanent(report)))
      return keep("delivery_delayed");

    let to: EmailStatus = report.type;
    if (report.type !== "complained" && report.recipient !== undefined) {
      const recipients = recipientsOf(email, events);
      const outcomes = reportedOutcomes(events);
      outcomes.set(report.recipient.toLowerCase(), report.type);
      if (recipients.length > 1) {
        if (!recipients.every((r) => outcomes.has(r))) return keep(report.type);
        to = recipients.every((r) => outcomes.get(r) === "bounced") ? "bounced" : "delivered";
      }
    }
    const change = applyTransition(email, to, at);
    if (!change.ok) return { outcome: "ignored", emailId: email.id, status: email.status, reason: change.reason };
    const bounce =
      report.bounce ??
      (to === "bounced" ? { type: "Permanent", subType: "General", message: report.diagnostic ?? "" } : undefined);
    const stored = await this.#storage.emails.transitionEmail(email.id, {
      from: [email.status],
      to,
      ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
      ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
      event: { type: report.type, at, detail },
      events: transitionDomainEvents(email, to, nowIso, report.diagnostic, bounce),
    });
    return stored && { outcome: "applied", emailId: email.id, status: stored.status };
  }

  /**
   * A hard bounce or a complaint puts the address on the suppression list (origin `bounce` /
   * `complaint`, source the email). Without a recipient in the report, the email's only recipient
   * is meant; an email with several gives no address to suppress.
   */
  async #suppress(email: EmailRecord, events: EmailEvent[], report: DeliveryReport, nowIso: string): Promise<string[]> {
    const origin =
      report.type === "complained"
        ? "complaint"
        : report.type === "bounced" && isPermanent(report)
          ? "bounce"
          : undefined;
    if (origin === undefined) return [];
    const recipients = recipientsOf(email, events);
    const address = report.recipient?.toLowerCase() ?? (recipients.length === 1 ? recipients[0] : undefined);
    if (address === undefined) return [];
    const entry: SuppressionRecord = {
      id: uuidv7(Date.parse(nowIso)),
      email: address,
      origin,
      sourceId: email.id,
      createdAt: nowIso,
    };
    await this.#storage.suppressions.addSuppressions([entry], (added) => [
      suppressionDomainEvent("suppression.added", added, nowIso),
    ]);
    return [address];
  }
}

/** The event detail of a report: where it came from and what it said, snake_case like the rest. */
function reportDetail(report: DeliveryReport): Record<string, unknown> {
  const detail: Record<string, unknown> = { source: report.source };
  if (report.recipient !== undefined) detail.recipient = report.recipient.toLowerCase();
  if (report.status !== undefined) detail.status = report.status;
  if (report.diagnostic !== undefined) detail.diagnostic = report.diagnostic;
  if (report.bounce !== undefined) detail.bounce = report.bounce;
  if (report.feedbackType !== undefined) detail.feedback_type = report.feedbackType;
  if (report.occurredAt !== undefined) detail.reported_at = report.occurredAt;
  if (report.providerMessageId !== undefined) detail.provider_message_id = report.providerMessageId;
  return detail;
}
