/**
 * `flagpost/inbound/providers`: the sending providers' delivery-report webhooks as ReportSources
 * (src/ports/report-source.ts). Hand them to the HTTP layer, which serves each at
 * `POST /v1/inbound/{name}`: `toNodeHandler(fp, { inbound: [postmarkSource({ user, password })] })`.
 * Unlike `flagpost/inbound` (the SMTP listener and the mail parser), this entry needs no optional peer.
 */
export { sesSource, type SesOptions } from "./ses.js";
export type { Fetch } from "./sns-envelope.js";
export { sendgridSource, type SendGridOptions } from "./sendgrid.js";
export { mailgunSource, type MailgunOptions } from "./mailgun.js";
export { postmarkSource, type PostmarkOptions } from "./postmark.js";
export { memorySignatureChecks } from "./freshness.js";
