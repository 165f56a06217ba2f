import type { ReputationGuard } from "../domains/reputation-guard.js";
import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { uuidv7 } from "../ids.js";
import type {
  EmailEvent,
  EmailRecord,
  EmailStatus,
  EmailTransition,
  EpochMs,
  Storage,
} from "../ports/storage/index.js";
import { parseIsoInstant } from "../time.js";
import { parseInput } from "../validation.js";
import { applyTransition } from "./lifecycle.js";
import { emailRecipients } from "./message.js";
import { classifiedBounce, reportDetail } from "./report-detail.js";
import {
  bounceFactsOf,
  emailBounce,
  finalReports,
  type RecipientBounceFacts,
  type SentEnvelope,
  sentEnvelope,
} from "./report-envelope.js";
import { emailIdFromVerp } from "./report-fields.js";
import { type Match, matchReport } from "./report-matching.js";
import { type DeliveryReport, deliveryReportSchema } from "./reports.js";
import type { SuppressionPolicy } from "./suppression-policy.js";
import { splitVerpKey, type VerpTags } from "./verp-tag.js";
import { emailDomainEvent, transitionDomainEvents } from "./webhook-events.js";

/**
 * What applying one report did:
 * - `applied`: the email changed status (`status` is the new one);
 * - `recorded`: an event was added and the status kept (a delay, one of several recipients, an
 *   auto-reply, a recipient left out of the envelope);
 * - `ignored`: the email's status does not allow it (a report repeated, or out of order);
 * - `unmatched`: no email matched, or the report is not one flagpost can trust to be about the
 *   email it names (a wrong VERP tag, a recipient the email was not sent to): it was stored for
 *   people to look at.
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
const NO_EMAIL = "no email has this id, Message-ID or provider message id";

const unmatched = (reason: string): ReportResult => ({ outcome: "unmatched", reason });

export interface ReportApplierDeps {
  storage: Storage;
  clock: Clock;
  policy: SuppressionPolicy;
  verpTags: VerpTags;
  /** Told of each Permanent bounce and complaint applied (the reputation guard). */
  reputation?: ReputationGuard;
}

/**
 * Applies delivery reports (docs/emails.md, "Reports from the mail system") along the lifecycle:
 * finds the email (VERP key, then the original Message-ID, then the provider's id), checks that
 * the report is about a recipient of that email's `sent` attempt, records it, moves the email once
 * every recipient of that attempt has its final word, applies the suppression policy, and stores
 * what matched nothing or cannot be trusted.
 */
export class ReportApplier {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #policy: SuppressionPolicy;
  readonly #tags: VerpTags;
  readonly #reputation: ReputationGuard | undefined;

  constructor(deps: ReportApplierDeps) {
    this.#storage = deps.storage;
    this.#clock = deps.clock;
    this.#policy = deps.policy;
    this.#tags = deps.verpTags;
    this.#reputation = deps.reputation;
  }

  /**
   * One result per report, in order. Reports that match no email are stored, never refused; a
   * report that is not a DeliveryReport at all is a caller's mistake (`validation_error`, before
   * anything is applied); a storage failure rejects (the sender of the report should retry).
   */
  async apply(reports: readonly DeliveryReport[]): Promise<ReportResult[]> {
    const checked = reports.map((report, index) => parseInput(deliveryReportSchema, report, [index]));
    const results: ReportResult[] = [];
    const kept: { report: DeliveryReport; reason: string }[] = [];
    for (const report of checked) {
      const match = await matchReport(this.#storage, report);
      const result = match ? await this.#applyTo(match, report) : unmatched(NO_EMAIL);
      if (match) await this.#noteReputation(match.email, report, result);
      if (result.outcome === "unmatched") kept.push({ report, reason: result.reason ?? NO_EMAIL });
      results.push(result);
    }
    if (kept.length > 0) {
      const receivedAt = this.#clock.now();
      await this.#storage.deliveryReports.recordUnmatchedReports(
        kept.map(({ report, reason }) => ({ id: uuidv7(this.#clock.now()), receivedAt, reason, report })),
      );
    }
    return results;
  }

  /** A Permanent bounce or a complaint that was applied or recorded counts against the sending domain. */
  async #noteReputation(email: EmailRecord, report: DeliveryReport, result: ReportResult): Promise<void> {
    if (!this.#reputation || (result.outcome !== "applied" && result.outcome !== "recorded")) return;
    if (report.type === "complained") await this.#reputation.noteReport(email, "complaint");
    else if (report.type === "bounced" && report.action !== "delayed" && classifiedBounce(report).type === "Permanent")
      await this.#reputation.noteReport(email, "bounce");
  }

  async #applyTo(match: Match, report: DeliveryReport): Promise<ReportResult> {
    let email = match.email;
    for (let round = 0; round < REPORT_ROUNDS; round += 1) {
      const events = await this.#storage.emails.listEmailEvents(email.id);
      const envelope = sentEnvelope(email, events);
      const refused = await this.#refusal(match, email, envelope);
      if (refused) return refused;
      const result = await this.#tryApply(email, events, envelope!, report);
      if (result) return result;
      // The email changed between reading and writing (the worker recorded its send): read it again.
      const again = await this.#storage.emails.getEmail(email.id);
      if (!again) break;
      email = again;
    }
    throw new FlagpostError(
      "unavailable",
      `Email "${match.email.id}" kept changing while a report was applied; try again`,
    );
  }

  /** Why the report cannot be about this email's delivery: a VERP tag that is not its own, or no attempt it can answer. */
  async #refusal(
    match: Match,
    email: EmailRecord,
    envelope: SentEnvelope | undefined,
  ): Promise<ReportResult | undefined> {
    if (match.verp?.tag !== undefined && !(await this.#tags.verify(email.id, match.verp.tag)))
      return unmatched("the VERP address's tag is not this email's");
    const sentTag = envelope?.returnPath === undefined ? undefined : emailIdFromVerp(envelope.returnPath);
    if (match.verp && match.verp.tag === undefined && sentTag !== undefined && splitVerpKey(sentTag).tag !== undefined)
      return unmatched("the VERP address has no tag; this email was sent with one");
    if (envelope) return undefined;
    if (email.status === "queued" && email.leaseUntil !== undefined && email.leaseUntil > this.#clock.now())
      // The worker may be recording this very send: the report's sender should try again shortly.
      throw new FlagpostError("unavailable", `Email "${email.id}" is being sent; try the report again later`);
    return unmatched(`email "${email.id}" was never handed on to anyone`);
  }

  /** One attempt; undefined when the email changed meanwhile (the conditional write did not apply). */
  async #tryApply(
    email: EmailRecord,
    events: EmailEvent[],
    envelope: SentEnvelope,
    report: DeliveryReport,
  ): Promise<ReportResult | undefined> {
    const recipient =
      report.recipient?.toLowerCase() ?? (envelope.recipients.length === 1 ? envelope.recipients[0] : undefined);
    const at = this.#reportTime(report, envelope);
    const now = this.#clock.now();
    const bounce = report.type === "bounced" ? classifiedBounce(report, recipient) : undefined;
    const detail = reportDetail(report, recipient, bounce);
    const open = email.status === "queued" || email.status === "sent";
    /** Adds the report's event and keeps the status. */
    const keep = async (
      type: EmailTransition["event"]["type"],
      options: { anyStatus?: boolean; delayed?: boolean } = {},
    ): Promise<ReportResult | undefined> => {
      if (!open && !options.anyStatus)
        return { outcome: "ignored", emailId: email.id, status: email.status, reason: `the email is ${email.status}` };
      const stored = await this.#storage.emails.transitionEmail(email.id, {
        from: [email.status],
        to: email.status,
        event: { type, at, detail },
        ...(type === "auto_replied" ? { keepLastEvent: true } : {}),
        events: options.delayed ? [emailDomainEvent("email.delivery_delayed", email, now)] : [],
      });
      return stored && { outcome: "recorded", emailId: email.id, status: stored.status };
    };

    if (report.type === "auto_replied") return keep("auto_replied", { anyStatus: true });
    if (recipient === undefined || !envelope.recipients.includes(recipient)) {
      // Not a recipient of the attempt: one the email names (left out as suppressed or refused) is
      // recorded and changes nothing; anyone else is no recipient of this email at all.
      if (recipient === undefined || emailRecipients(email).includes(recipient))
        return keep(report.type === "delayed" ? "delivery_delayed" : report.type, { anyStatus: true });
      return unmatched(`the report names ${recipient}, to whom email "${email.id}" was not sent`);
    }
    if (report.type === "delayed" || report.action === "delayed") return keep("delivery_delayed", { delayed: true });

    if (report.type === "complained") {
      const complainedBefore = events.some((e) => e.type === "complained" && e.detail?.recipient === recipient);
      if (email.status === "complained" && !complainedBefore) {
        const kept = await keep("complained", { anyStatus: true });
        return kept && this.#suppressed(kept, this.#policy.afterComplaint(email.id, recipient, report.diagnostic));
      }
      const change = applyTransition(email, "complained", at);
      if (!change.ok) return { outcome: "ignored", emailId: email.id, status: email.status, reason: change.reason };
      const stored = await this.#transition(email, "complained", change, at, detail, now);
      return stored && this.#suppressed(stored, this.#policy.afterComplaint(email.id, recipient, report.diagnostic));
    }

    const finals = finalReports(events);
    if (finals.has(recipient))
      return {
        outcome: "ignored",
        emailId: email.id,
        status: email.status,
        reason: `${recipient} already has a final report`,
      };
    if (!open)
      return { outcome: "ignored", emailId: email.id, status: email.status, reason: `the email is ${email.status}` };
    const outcomes = new Map([...finals].map(([r, e]) => [r, e.type]));
    outcomes.set(recipient, report.type);
    let result: ReportResult | undefined;
    if (!envelope.complete || !envelope.recipients.every((r) => outcomes.has(r))) {
      result = await keep(report.type);
    } else {
      const to = envelope.recipients.some((r) => outcomes.get(r) === "delivered") ? "delivered" : "bounced";
      const change = applyTransition(email, to, at);
      if (!change.ok) return { outcome: "ignored", emailId: email.id, status: email.status, reason: change.reason };
      const bounced: RecipientBounceFacts[] = envelope.recipients.flatMap((r) =>
        r === recipient
          ? bounce
            ? [bounce]
            : []
          : finals.get(r)?.type === "bounced"
            ? [bounceFactsOf(finals.get(r)!)]
            : [],
      );
      const summary = to === "bounced" ? emailBounce(bounced) : undefined;
      result = await this.#transition(
        email,
        to,
        change,
        at,
        summary ? { ...detail, bounce: summary } : detail,
        now,
        summary,
      );
    }
    if (!result || !bounce) return result;
    return this.#suppressed(result, this.#policy.afterBounce(email.id, bounce));
  }

  async #transition(
    email: EmailRecord,
    to: EmailStatus,
    change: { sentAt?: EpochMs; deliveredAt?: EpochMs },
    at: EpochMs,
    detail: Record<string, unknown>,
    now: EpochMs,
    bounce?: ReturnType<typeof emailBounce>,
  ): Promise<ReportResult | undefined> {
    const stored = await this.#storage.emails.transitionEmail(email.id, {
      from: [email.status],
      to,
      ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
      ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
      event: { type: to, at, detail },
      events: transitionDomainEvents(email, to, now, undefined, bounce),
    });
    return stored && { outcome: "applied", emailId: email.id, status: stored.status };
  }

  async #suppressed(result: ReportResult, suppressing: Promise<string[]>): Promise<ReportResult> {
    const suppressed = await suppressing;
    return suppressed.length > 0 ? { ...result, suppressed } : result;
  }

  /**
   * The report's time when it gives a sane one (not more than 24 h ahead), else now; never before
   * the attempt it answers (a report's Date has whole seconds, the attempt's time milliseconds).
   */
  #reportTime(report: DeliveryReport, envelope: SentEnvelope): EpochMs {
    const now = this.#clock.now();
    const ms = report.occurredAt === undefined ? undefined : parseIsoInstant(report.occurredAt);
    const given = ms !== undefined && ms <= now + MAX_REPORT_AHEAD_MS ? ms : now;
    return Math.max(given, envelope.at + 1);
  }
}
