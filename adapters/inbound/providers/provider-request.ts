import { FlagpostError } from "../../../src/errors.js";

/**
 * What every provider source (a ReportSource, src/ports/report-source.ts) says the same way: the
 * two refusals of an unauthenticated request, and the body read as JSON.
 */

export function missingSignature(what: string): FlagpostError {
  return new FlagpostError("missing_signature", `The request carries no ${what}`);
}

/** "The SendGrid signature does not verify"; with `why`, "The SNS message is refused: <why>". */
export function invalidSignature(what: string, why?: string): FlagpostError {
  return new FlagpostError("invalid_signature", why ? `The ${what} is refused: ${why}` : `The ${what} does not verify`);
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The body as JSON, or undefined when it is not UTF-8 JSON. */
export function jsonOf(body: Uint8Array): unknown {
  try {
    return JSON.parse(UTF8.decode(body));
  } catch {
    return undefined;
  }
}
