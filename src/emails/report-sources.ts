import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { firstUse } from "../once-tokens.js";
import type { ReportSource, SignatureChecks } from "../ports/report-source.js";
import type { IdempotencyRepository } from "../ports/storage/index.js";

/**
 * The registry of report sources: the list an app hands in, checked once, looked up by name. It
 * replaces a closed union of provider names, so a new intake is a new list entry, not a core change.
 */

/** A source's name: one path segment, `source` in events and webhooks (docs/emails.md). */
export const REPORT_SOURCE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** `report` is what a report posted by hand says it came from (`POST /v1/emails/{id}/events`). */
const RESERVED = new Set(["report"]);

/**
 * The sources by name. Throws validation_error for a name that is not one path segment of
 * lower-case letters, digits and dashes, for `report`, and for a name given twice (the second
 * would never be reached).
 */
export function reportSourceRegistry(sources: readonly ReportSource[] = []): ReadonlyMap<string, ReportSource> {
  const byName = new Map<string, ReportSource>();
  for (const source of sources) {
    const name: unknown = source?.name;
    if (typeof name !== "string" || !REPORT_SOURCE_NAME.test(name) || RESERVED.has(name))
      throw new FlagpostError(
        "validation_error",
        `A report source's name must be lower-case letters, digits and dashes, start with a letter, be at most 32 characters and not "report"; got ${JSON.stringify(name)}`,
      );
    if (byName.has(name)) throw new FlagpostError("validation_error", `Two report sources are named "${name}"`);
    byName.set(name, source);
  }
  return byName;
}

/** Tokens remembered in the storage's idempotency records: shared by every process on that storage. */
export function storedSignatureChecks(idempotency: IdempotencyRepository, clock: Clock): SignatureChecks {
  return {
    clock,
    firstUse: (scope, token, ttlMs) => firstUse(idempotency, scope, token, clock.now(), ttlMs),
  };
}
