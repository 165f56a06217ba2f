/**
 * `flagpost/inbound`: delivery reports that arrive as mail. `mailReportParser()` reads RFC 3464
 * DSNs and RFC 5965 feedback reports (on mailparser); `startInboundSmtp()` is the SMTP listener
 * that receives them (on smtp-server). Both packages are optional peer dependencies, needed only
 * by an app that imports this entry.
 */
export { mailReportParser } from "./report-parser.js";
export { startInboundSmtp, type InboundSmtp, type InboundSmtpOptions } from "./smtp-listener.js";
