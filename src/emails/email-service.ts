import type { Clock } from "../clock.js";
import { type ErrorDetail, FlagpostError, notFound } from "../errors.js";
import { fingerprint, runIdempotent } from "../idempotency.js";
import { isStorableText } from "../input-policy.js";
import { GroupCommit } from "../jobs/group-commit.js";
import type { EmailRecord, IdempotencyCompletion, Storage } from "../storage/index.js";
import { parseIsoInstant } from "../time.js";
import { detailText, parseInput, validationError } from "../validation.js";
import { applyTransition } from "./lifecycle.js";
import { checkSendRequest, newEmailRecord, scheduledEvents } from "./new-email.js";
import { ReportApplier, type ReportResult } from "./report-application.js";
import type { DeliveryReport, ReportParser } from "./reports.js";
import { transitionDomainEvents } from "./webhook-events.js";
import type { OutboxWorker } from "./outbox-worker.js";
import {
  BATCH_VALIDATION_MODES,
  type BatchValidation,
  type EmailEventRequest,
  emailEventSchema,
  MAX_BATCH,
  type ParsedSendRequest,
  type SendEmailRequest,
} from "./schema.js";
import {
  type BatchResult,
  type EmailEventView,
  type EmailSummary,
  type EmailView,
  toEventView,
  toSummary,
  toView,
} from "./views.js";

export interface IdempotencyOptions {
  /** The Idempotency-Key (1–256 characters): the same key and request within 24 h do nothing new. */
  idempotencyKey?: string;
  /** Whose key it is. Over HTTP the API key's id; in process any stable string. Default "in-process". */
  idempotencyScope?: string;
}

export interface SendBatchOptions extends IdempotencyOptions {
  /** `strict` (default): one invalid email refuses the batch. `permissive`: the valid ones are sent. */
  validation?: BatchValidation;
}

export interface EmailServiceOptions {
  /** Turns raw DSN/ARF messages into DeliveryReports for `ingestReport`. */
  reportParser?: ReportParser;
}

/** How far in the future a report's `occurred_at` may be (clock skew between systems). */
const MAX_REPORT_AHEAD_MS = 24 * 60 * 60 * 1000;
/** A report retried this often when the email changes between reading it and storing the report. */
const REPORT_ROUNDS = 3;

/** What a report says went wrong, for the `bounce.message` / `failed.reason` of its webhook. */
function reportReason(detail: Record<string, unknown> | null | undefined): string {
  for (const key of ["message", "reason", "error", "diagnostic"])
    if (typeof detail?.[key] === "string") return detail[key];
  return "";
}

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
   * are written one by one, so each call gets its own answer.
   */
  readonly #inserts = new GroupCommit<EmailRecord, void>(
    async (records) => {
      await this.#storage.emails.insertEmails(records, undefined, scheduledEvents(records));
      return records.map(() => undefined);
    },
    { maxBatch: MAX_BATCH, onGroupFailure: "one-by-one" },
  );

  readonly #reports: ReportApplier;
  readonly #parser: ReportParser | undefined;

  constructor(storage: Storage, clock: Clock, worker?: OutboxWorker, options: EmailServiceOptions = {}) {
    this.#storage = storage;
    this.#clock = clock;
    this.worker = worker;
    this.#reports = new ReportApplier(storage, clock);
    this.#parser = options.reportParser;
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

  /**
   * Parses one raw report message (a whole RFC 5322 message: a DSN or an ARF report) with the
   * `reportParser` given to createFlagpost and applies what it holds. A message that is no report
   * gives `[]`. Without a parser: `unavailable`, naming the option.
   */
  async ingestReport(raw: string | Uint8Array): Promise<ReportResult[]> {
    if (!this.#parser)
      throw new FlagpostError(
        "unavailable",
        "No report parser is configured: pass `reportParser` to createFlagpost() to ingest raw DSN and ARF reports",
      );
    return this.applyReports(await this.#parser.parse(raw));
  }

  /** Stores one email in the outbox and answers `{id, from, to, subject, status: "queued", created_at}`. */
  async send(request: SendEmailRequest, options: IdempotencyOptions = {}): Promise<EmailSummary> {
    const now = this.#clock.now();
    const parsed = checkSendRequest(request, now, []);
    if (!parsed.ok) throw validationError(parsed.details);
    if (options.idempotencyKey === undefined) {
      const record = newEmailRecord(parsed.value, now);
      await this.#inserts.add(record);
      this.worker?.wake();
      return toSummary(record);
    }
    const store = async (complete?: (result: EmailSummary) => IdempotencyCompletion) => {
      const record = newEmailRecord(parsed.value, now);
      const summary = toSummary(record);
      await this.#storage.emails.insertEmails([record], complete?.(summary), scheduledEvents([record]));
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
    requests.forEach((request, index) => {
      const parsed = checkSendRequest(request, now, mode === "strict" ? [index] : []);
      if (parsed.ok) valid.push({ index, value: parsed.value });
      else invalid.push({ index, details: parsed.details });
    });
    if (mode === "strict" && invalid.length > 0) throw validationError(invalid.flatMap((i) => i.details));

    const store = async (complete?: (result: BatchResult) => IdempotencyCompletion) => {
      const records = valid.map((v) => newEmailRecord(v.value, now));
      const result: BatchResult = { data: records.map((r) => ({ id: r.id })) };
      if (mode === "permissive")
        result.errors = invalid.map((i) => ({ index: i.index, message: detailText(i.details[0]!) }));
      if (records.length > 0) {
        await this.#storage.emails.insertEmails(records, complete?.(result), scheduledEvents(records));
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
    return toView(await this.#load(id));
  }

  /**
   * Applies a delivery report from outside (a provider webhook, a DSN processor) along the
   * lifecycle: `invalid_transition` (422) when the email's status does not allow it, and then
   * nothing changes. Answers the email as stored afterwards.
   */
  async recordEvent(id: string, report: EmailEventRequest): Promise<EmailView> {
    const input = parseInput(emailEventSchema, report);
    const now = this.#clock.now();
    let at = new Date(now).toISOString();
    if (input.occurred_at) {
      const ms = parseIsoInstant(input.occurred_at, { allowDateOnly: false })!;
      if (ms > now + MAX_REPORT_AHEAD_MS) {
        throw new FlagpostError("validation_error", '"occurred_at" must not be more than 24 hours in the future', {
          details: [{ path: "occurred_at", message: "must not be more than 24 hours in the future" }],
        });
      }
      at = new Date(ms).toISOString();
    }
    for (let round = 0; round < REPORT_ROUNDS; round += 1) {
      const email = await this.#load(id);
      const change = applyTransition(email, input.type, at);
      if (!change.ok) throw new FlagpostError("invalid_transition", change.reason);
      const stored = await this.#storage.emails.transitionEmail(id, {
        from: [email.status],
        to: change.status,
        ...(change.sentAt === undefined ? {} : { sentAt: change.sentAt }),
        ...(change.deliveredAt === undefined ? {} : { deliveredAt: change.deliveredAt }),
        event: { type: input.type, at, detail: { source: "report", ...(input.detail ?? {}) } },
        events: transitionDomainEvents(email, change.status, new Date(now).toISOString(), reportReason(input.detail)),
      });
      if (stored) return toView(stored);
      // The status changed between reading and writing (the worker recorded its send): re-read.
    }
    throw new FlagpostError("unavailable", `Email "${id}" kept changing while the report was applied; send it again`);
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
