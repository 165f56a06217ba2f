/**
 * `flagpost/inbound/providers`: the sending providers' delivery-report webhooks as ReportSources
 * (src/ports/report-source.ts). Hand them to the HTTP layer, which serves each at
 * `POST /v1/inbound/{name}`: `toNodeHandler(fp, { inbound: [postmarkSource({ user, password })] })`.
 * Unlike `flagpost/inbound` (the SMTP listener and the mail parser), this entry needs no optional peer.
 * A new provider is its own file plus its two lines here (docs/architecture.md, "Adding a report intake").
 */
import { mailgunIntake } from "./mailgun.js";
import { postmarkIntake } from "./postmark.js";
import type { ProviderIntake } from "./provider-intake.js";
import { sendgridIntake } from "./sendgrid.js";
import { sesIntake } from "./ses.js";

export { sesSource, type SesOptions } from "./ses.js";
export type { Fetch } from "./sns-envelope.js";
export { sendgridSource, type SendGridOptions } from "./sendgrid.js";
export { mailgunSource, type MailgunOptions } from "./mailgun.js";
export { postmarkSource, type PostmarkOptions } from "./postmark.js";
export { memorySignatureChecks } from "./freshness.js";
export type { ProviderIntake } from "./provider-intake.js";

/**
 * Every provider, with how it is built from named settings: `flagpost serve` reads the
 * `FLAGPOST_INBOUND_*` variables through this list, so the CLI names no provider.
 */
export const PROVIDER_INTAKES: readonly ProviderIntake[] = [sesIntake, sendgridIntake, mailgunIntake, postmarkIntake];
