import type { DeliveryReport } from "../emails/reports.js";

/**
 * Turns one raw report message (a whole RFC 5322 message, as received) into the reports it holds:
 * a DSN gives one per recipient, an ARF report one. A message that is not a report gives `[]`;
 * the parser never throws on bad input. The parser runs in the adapter that received the bytes
 * (the SMTP listener, an app's own mailbox reader), which hands the core reports, never bytes.
 */
export interface ReportParser {
  parse(raw: string | Uint8Array): Promise<DeliveryReport[]>;
}
