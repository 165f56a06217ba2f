import { type DeliveryReport, FlagpostError } from "../../../src/internal.js";

/**
 * The port behind `POST /v1/inbound/{provider}`: one small file per provider turns a request
 * into the DeliveryReports it holds, after checking it really comes from that provider. Providers
 * cannot send a flagpost API key, so each route authenticates the provider's own way (a signature
 * or Basic credentials, configured per provider), and `receive` does it before reading anything.
 */
export interface InboundRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body exactly as sent: signatures cover these bytes. */
  body: Uint8Array;
}

export interface InboundSource {
  /**
   * MUST throw FlagpostError `missing_signature` when the request carries no signature or
   * credentials, `invalid_signature` when they do not verify — before looking at anything else —
   * and `validation_error` for a verified body that is not the provider's shape. Events that are no
   * delivery outcome (opens, clicks, subscription changes) give no report.
   */
  receive(request: InboundRequest): Promise<DeliveryReport[]>;
}

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
