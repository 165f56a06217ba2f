/**
 * `flagpost/inbound`: delivery reports that arrive as mail. `mailReportParser()` reads RFC 3464
 * DSNs and RFC 5965 feedback reports (on mailparser); `startInboundSmtp()` is the SMTP listener
 * that receives them (on smtp-server). Both packages are optional peer dependencies, needed only
 * by an app that imports this entry.
 */
import { importWithPeers } from "../../src/optional-peer.js";
import type { mailReportParser as MailReportParser } from "./report-parser.js";
import type { startInboundSmtp as StartInboundSmtp } from "./smtp-listener.js";

export type { InboundSmtp, InboundSmtpOptions } from "./smtp-listener.js";

// Imported through importWithPeers (see adapters/kysely/index.ts) so a missing mailparser or
// smtp-server is named with its install command instead of Node's link error.
const adapter = await importWithPeers("flagpost/inbound", ["mailparser", "smtp-server"], async () => ({
  ...(await import("./report-parser.js")),
  ...(await import("./smtp-listener.js")),
}));

export const mailReportParser: typeof MailReportParser = adapter.mailReportParser;
export const startInboundSmtp: typeof StartInboundSmtp = adapter.startInboundSmtp;
