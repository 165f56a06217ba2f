import type { Clock } from "./clock.js";
import type { DeliveryReport } from "../emails/reports.js";

/**
 * A report intake that is called over HTTP: a sending provider's webhook (SES through SNS,
 * SendGrid, Mailgun, Postmark) or any other system that pushes delivery outcomes. The HTTP layer
 * serves each source given to it at `POST /v1/inbound/{name}`; the sources are a list the app (or
 * `flagpost serve`) hands in, so a new one needs no change to flagpost itself (docs/architecture.md,
 * "Adding a report intake").
 */

/** What a source receives: the request as sent, since signatures cover its exact bytes. */
export interface InboundRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body exactly as sent. */
  body: Uint8Array;
}

/**
 * What stops a captured, validly signed request from being sent again: the host's clock (a signed
 * timestamp must be within 5 minutes of it, either way) and its memory of single-use tokens.
 */
export interface SignatureChecks {
  clock: Clock;
  /**
   * True the first time `token` is seen in `scope`; false while an earlier use is remembered
   * (`ttlMs`). The HTTP layer's memory is the storage's, shared by every process on it.
   */
  firstUse(scope: string, token: string, ttlMs: number): Promise<boolean>;
}

export interface ReportSource {
  /**
   * The path segment (`/v1/inbound/{name}`) and, by convention, the `source` of the reports it
   * gives: lower-case letters, digits and dashes, starting with a letter, at most 32 characters.
   */
  readonly name: string;
  /**
   * Authenticates the request, then turns it into the DeliveryReports it holds. MUST throw
   * FlagpostError `missing_signature` when the request carries no signature or credentials,
   * `invalid_signature` when they do not verify or are stale or replayed (by `checks`) — before
   * looking at anything else — and `validation_error` for a verified body that is not the
   * source's shape. Events that are no delivery outcome (opens, clicks) give no report.
   * `checks`: the host's (the HTTP layer always passes them); a source called on its own uses
   * the checks it was built with.
   */
  receive(request: InboundRequest, checks?: SignatureChecks): Promise<DeliveryReport[]>;
}
