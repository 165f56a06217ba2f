import type { Clock } from "../ports/clock.js";
import { type ErrorDetail, FlagpostError, notFound } from "../errors.js";
import { fingerprint, runIdempotent } from "../idempotency.js";
import { isStorableText } from "../input-policy.js";
import { GroupCommit } from "../jobs/group-commit.js";
import type { EmailRecord, IdempotencyCompletion, Storage } from "../ports/storage/index.js";
import { detailText, validationError } from "../validation.js";
import { type AcceptedEmail, acceptedEmail, checkSendRequest, scheduledEvents } from "./new-email.js";
import { ReportApplier, type ReportResult } from "./report-application.js";
import { EmailChanges, type UpdateEmailRequest } from "./email-changes.js";
import { type ListView, type PageQuery, readPage } from "../pagination.js";
import type { DeliveryReport } from "./reports.js";
import type { OutboxWorker } from "./outbox-worker.js";
import type { EmailBounce } from "./report-envelope.js";
import type { UnsubscribeLinks } from "./unsubscribe-links.js";
import { unverifiedSender, type VerifiedSenders } from "./verified-sender.js";
import type { ReputationGuard } from "../domains/reputation-guard.js";
import type { EmailServiceOptions, IdempotencyOptions, SendBatchOptions } from "./email-service-options.js";
import {
  BATCH_VALIDATION_MODES,
  type EmailEventRequest,
  MAX_BATCH,
  type ParsedSendRequest,
  type SendEmailRequest,
} from "./schema.js";
import {
  type BatchResult,
  type EmailEventView,
  type EmailListView,
  type EmailSummary,
  type EmailView,
  toEventView,
  toListView,
  toSummary,
  toView,
} from "./views.js";

export type { EmailServiceOptions, IdempotencyOptions, SendBatchOptions } from "./email-service-options.js";

/**
 * Emails: validates send requests, stores them in the outbox (before anything is answered),
 * reads them back, and applies delivery reports along docs/api.md's lifecycle. Sending is the
 * OutboxWorker's job; `send` only wakes it.
 */
export class EmailService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  /** Hands queued emails to the transport; undefined when flagpost has no transport. */
  readonly worker: OutboxWorker | undefined;
  /**
   * `send` stores its email together with the others sent meanwhile: one write (one commit) for
   * all the calls that arrive in the same turn of the event loop or while the previous write runs.
   * Each call still resolves only once its email is stored; if a group's write fails, its emails
   * are written one by one, so each call gets its own answer. The reputation guard then looks at
   * the group once (one read of each sending domain, not one per email); its answer is handed to
   * each call rather than thrown by the write, so a failure there never writes the emails again.
   */
  readonly #inserts = new GroupCommit<AcceptedEmail, { noted: Promise<void> }>(
    async (emails) => {
      const records = emails.map((e) => e.record);
      await this.#storage.emails.insertEmails(records, undefined, scheduledEvents(records));
      const noted = this.#reputation?.noteAccepted(emails) ?? Promise.resolve();
      // Every call awaits it; this keeps a failure from being reported unhandled before they do.
      noted.catch(() => {});
      return emails.map(() => ({ noted }));
    },
    { maxBatch: MAX_BATCH, onGroupFailure: "one-by-one" },
  );

  readonly #reports: ReportApplier;
  readonly #changes: EmailChanges;
  readonly #links: UnsubscribeLinks;
  readonly #verifiedSenders: VerifiedSenders | undefined;
  readonly #reputation: ReputationGuard | undefined;

  constructor(storage: Storage, clock: Clock, worker: OutboxWorker | undefined, options: EmailServiceOptions) {
    this.#storage = storage;
    this.#clock = clock;
    this.worker = worker;
    this.#reports = new ReportApplier({ storage, clock, ...options });
    this.#reputation = options.reputation;
    this.#changes = new EmailChanges(storage, clock);
    this.#links = options.unsubscribeLinks;
    this.#verifiedSenders = options.verifiedSenders;
  }

  /** The request checked as `checkSendRequest` does, and against this server's settings (`unsubscribe: true`). */
  #check(request: unknown, now: number, prefix: PropertyKey[]): ReturnType<typeof checkSendRequest> {
    const checked = checkSendRequest(request, now, prefix);
    const problem = checked.ok ? this.#links.problem(checked.value.unsubscribe, prefix) : undefined;
    return problem ? { ok: false, details: [problem] } : checked;
  }

  /**
   * The outbox record of a checked request, with its List-Unsubscribe headers. Synchronous unless
   * the request asks for an unsubscribe link: an extra tick on every send would split the group
   * commit of sends that arrive together (test/emails/send-grouping.test.ts).
   */
  #accept(request: ParsedSendRequest, now: number): AcceptedEmail | Promise<AcceptedEmail> {
    const email = acceptedEmail(request, now);
    if (!request.unsubscribe) return email;
    const [recipient] = [...request.to!, ...(request.cc ?? []), ...(request.bcc ?? [])];
    return this.#links.addHeaders(email.record, request.unsubscribe, recipient?.mail).then(() => email);
  }

  /**
   * Applies delivery reports from the mail system (DSNs, ARF reports, provider webhooks, each
   * parsed into a DeliveryReport) along the lifecycle, one result per report in order. An email
   * is found by the VERP id, else the original Message-ID, else the provider's message id; a
   * report that finds none is stored (`storage.deliveryReports`) and answered `unmatched`, never
   * refused. Hard bounces and complaints put the address on the suppression list.
   */
  applyReports(reports: readonly DeliveryReport[]): Promise<ReportResult[]> {
    return this.#reports.apply(reports);
  }

  /** Stores one email in the outbox and answers `{id, from, to, subject, status: "queued", created_at}`. */
  async send(request: SendEmailRequest, options: IdempotencyOptions = {}): Promise<EmailSummary> {
    const now = this.#clock.now();
    const parsed = this.#check(request, now, []);
    if (!parsed.ok) throw validationError(parsed.details);
    // Only when the setting is on: the extra wait would otherwise split the group commit.
    const unverified =
      this.#verifiedSenders && (await unverifiedSender(this.#verifiedSenders, parsed.value.from.mail, []));
    if (unverified) throw validationError([unverified]);
    if (options.idempotencyKey === undefined) {
      const pending = this.#accept(parsed.value, now);
      const email = pending instanceof Promise ? await pending : pending;
      await (
        await this.#inserts.add(email)
      ).noted;
      this.worker?.wake();
      return toSummary(email.record);
    }
    const store = async (complete?: (result: EmailSummary) => IdempotencyCompletion) => {
      const email = await this.#accept(parsed.value, now);
      const summary = toSummary(email.record);
      await this.#storage.emails.insertEmails([email.record], complete?.(summary), scheduledEvents([email.record]));
      await this.#reputation?.noteAccepted([email]);
      this.worker?.wake();
      return summary;
    };
    return runIdempotent<EmailSummary>(
      this.#storage,
      this.#clock,
      this.#idempotent("emails.send", request, options),
      store,
    );
  }

  /**
   * Stores 1–100 emails at once (all in one write), answering their ids in request order.
   * Strict: any invalid email → 422 naming its index, and nothing is stored. Permissive: the
   * invalid ones are listed in `errors` and the others stored.
   */
  async sendBatch(requests: SendEmailRequest[], options: SendBatchOptions = {}): Promise<BatchResult> {
    const now = this.#clock.now();
    const mode = options.validation ?? "strict";
    if (!BATCH_VALIDATION_MODES.includes(mode)) {
      throw new FlagpostError(
        "validation_error",
        `"x-batch-validation" must be "strict" or "permissive", not ${JSON.stringify(mode)}`,
        {
          details: [{ path: "x-batch-validation", message: 'must be "strict" or "permissive"' }],
        },
      );
    }
    if (!Array.isArray(requests) || requests.length < 1 || requests.length > MAX_BATCH) {
      const message = `must be an array of 1 to ${MAX_BATCH} emails`;
      throw new FlagpostError("validation_error", `body ${message}`, { details: [{ path: "", message }] });
    }
    const valid: { index: number; value: ParsedSendRequest }[] = [];
    const invalid: { index: number; details: ErrorDetail[] }[] = [];
    for (const [index, request] of requests.entries()) {
      const prefix = mode === "strict" ? [index] : [];
      const parsed = this.#check(request, now, prefix);
      const senders = this.#verifiedSenders;
      const unverified =
        parsed.ok && senders ? await unverifiedSender(senders, parsed.value.from.mail, prefix) : undefined;
      if (unverified) invalid.push({ index, details: [unverified] });
      else if (parsed.ok) valid.push({ index, value: parsed.value });
      else invalid.push({ index, details: parsed.details });
    }
    if (mode === "strict" && invalid.length > 0) throw validationError(invalid.flatMap((i) => i.details));

    const store = async (complete?: (result: BatchResult) => IdempotencyCompletion) => {
      const emails = await Promise.all(valid.map((v) => this.#accept(v.value, now)));
      const records = emails.map((e) => e.record);
      const result: BatchResult = { data: records.map((r) => ({ id: r.id })) };
      if (mode === "permissive")
        result.errors = invalid.map((i) => ({ index: i.index, message: detailText(i.details[0]!) }));
      if (records.length > 0) {
        await this.#storage.emails.insertEmails(records, complete?.(result), scheduledEvents(records));
        await this.#reputation?.noteAccepted(emails);
        this.worker?.wake();
      }
      return result;
    };
    if (options.idempotencyKey === undefined) return store();
    // An invalid email is fingerprinted by what was wrong with it, not by its content: that content
    // broke the input rules and may be nested too deep for the fingerprint's recursion.
    const problems = new Map(invalid.map((i) => [i.index, i.details]));
    const fingerprinted = requests.map((request, index) =>
      problems.has(index) ? { invalid: problems.get(index) } : request,
    );
    return runIdempotent<BatchResult>(
      this.#storage,
      this.#clock,
      this.#idempotent(`emails.batch.${mode}`, fingerprinted, options),
      store,
    );
  }

  /** The email as GET /v1/emails/{id} shows it; `not_found` when unknown. */
  async get(id: string): Promise<EmailView> {
    const email = await this.#load(id);
    const view = toView(email);
    if (email.status !== "bounced") return view;
    // The bounce the email.bounced webhook carried, kept on the event that bounced the email.
    const events = await this.#storage.emails.listEmailEvents(id);
    const bounce = events.findLast((e) => e.type === "bounced" && e.detail?.bounce !== undefined)?.detail?.bounce;
    return bounce === undefined ? view : { ...view, bounce: bounce as EmailBounce };
  }

  /**
   * Applies a delivery report by hand (POST /v1/emails/{id}/events) along the lifecycle:
   * `invalid_transition` (422) when the email's status does not allow it, and then nothing
   * changes. `detail` may be an object or a string. Answers the email as stored afterwards.
   */
  recordEvent(id: string, report: EmailEventRequest): Promise<EmailView> {
    return this.#changes.recordEvent(id, report);
  }

  /**
   * Emails newest first, as Resend's `emails.list`: `limit` 1–100 (default 20), `after` or
   * `before` an email id; each without bodies, tags or attachments.
   */
  list(query: PageQuery = {}): Promise<ListView<EmailListView>> {
    return readPage(query, (page) => this.#storage.emails.listEmails(page), toListView);
  }

  /** Resend's `emails.update`: a new `scheduled_at` for a scheduled email no worker has claimed yet. */
  update(id: string, request: UpdateEmailRequest): Promise<EmailView> {
    return this.#changes.update(id, request);
  }

  /** Resend's `emails.cancel`: a scheduled email no worker has claimed yet becomes `canceled`. */
  cancel(id: string): Promise<EmailView> {
    return this.#changes.cancel(id);
  }

  /** The email's history, oldest first; `not_found` when unknown. */
  async events(id: string): Promise<EmailEventView[]> {
    if (!isStorableText(id)) throw notFound("Email", id);
    const events = await this.#storage.emails.listEmailEvents(id);
    if (events.length === 0) await this.#load(id); // every stored email has its queued event
    return events.map(toEventView);
  }

  async #load(id: string): Promise<EmailRecord> {
    if (!isStorableText(id)) throw notFound("Email", id); // no stored email has such an id: storage is not asked
    const email = await this.#storage.emails.getEmail(id);
    if (!email) throw notFound("Email", id);
    return email;
  }

  #idempotent(operation: string, body: unknown, options: IdempotencyOptions) {
    return {
      scope: options.idempotencyScope ?? "in-process",
      key: options.idempotencyKey!,
      fingerprint: fingerprint(operation, body),
    };
  }
}
