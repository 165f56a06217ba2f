import { type RecipientRejection, TransportError, type TransportErrorKind } from "../../src/ports/transport.js";

/**
 * nodemailer's errors as TransportErrors (docs/emails.md, "Outcomes"). An SMTP reply decides by
 * its code: 5xx is permanent (except 503, "bad sequence", which a new connection fixes), 4xx is
 * transient. Without a reply, configuration and local refusals are permanent, and everything
 * else (connection refused or lost, timeouts, DNS, TLS) transient: retried within the budget.
 */

interface NodemailerErrorLike {
  message?: unknown;
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  command?: unknown;
  recipient?: unknown;
  rejectedErrors?: unknown;
}

/** Codes nodemailer sets when the problem is the configuration or the message, not the network. */
const PERMANENT_WITHOUT_REPLY = new Set([
  "EAUTH",
  "ENOAUTH",
  "EOAUTH2",
  "ECONFIG",
  "EFILEACCESS",
  "EURLACCESS",
  "EREQUIRETLS",
  "EMAXRECIPIENTS",
  "EOTP",
]);

export function isPermanentCode(code: number): boolean {
  return code >= 500 && code < 600 && code !== 503;
}

function fields(error: unknown): NodemailerErrorLike {
  return typeof error === "object" && error !== null ? (error as NodemailerErrorLike) : {};
}

export function toRejection(error: unknown): RecipientRejection | undefined {
  const e = fields(error);
  if (typeof e.recipient !== "string") return undefined;
  const code = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const response = typeof e.response === "string" ? e.response : typeof e.message === "string" ? e.message : "refused";
  return {
    recipient: e.recipient,
    ...(code === undefined ? {} : { code }),
    response,
    permanent: code !== undefined && isPermanentCode(code),
  };
}

export function rejectionsOf(list: unknown): RecipientRejection[] {
  return Array.isArray(list) ? list.map(toRejection).filter((r): r is RecipientRejection => r !== undefined) : [];
}

export function classifyError(error: unknown): TransportError {
  if (error instanceof TransportError) return error;
  const e = fields(error);
  const code = typeof e.code === "string" ? e.code : undefined;
  const responseCode = typeof e.responseCode === "number" ? e.responseCode : undefined;
  let kind: TransportErrorKind;
  if (responseCode !== undefined) kind = isPermanentCode(responseCode) ? "permanent" : "transient";
  else if (code !== undefined && PERMANENT_WITHOUT_REPLY.has(code)) kind = "permanent";
  // Refused locally before anything was sent ("No recipients defined", message over the size limit).
  else if ((code === "EENVELOPE" || code === "EMESSAGE") && (e.command === "API" || e.command === "MAIL FROM"))
    kind = "permanent";
  else kind = "transient";
  const message = typeof e.message === "string" ? e.message : String(error);
  return new TransportError(kind, code === undefined ? message : `${code}: ${message}`, {
    ...(responseCode === undefined ? {} : { code: responseCode }),
    ...(typeof e.response === "string" ? { response: e.response } : {}),
    rejected: rejectionsOf(e.rejectedErrors),
    cause: error,
  });
}
