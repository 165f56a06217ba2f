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

// Loaded here so a missing peer is named (see adapters/kysely/index.ts).
const inbound = await importWithPeers("flagpost/inbound", ["mailparser", "smtp-server"], async () => ({
  ...(await import("./report-parser.js")),
  ...(await import("./smtp-listener.js")),
}));

export const mailReportParser: typeof MailReportParser = inbound.mailReportParser;
export const startInboundSmtp: typeof StartInboundSmtp = inbound.startInboundSmtp;
