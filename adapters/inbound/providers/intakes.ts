import { mailgunIntake } from "./mailgun.js";
import { postmarkIntake } from "./postmark.js";
import type { ProviderIntake } from "./provider-intake.js";
import { sendgridIntake } from "./sendgrid.js";
import { sesIntake } from "./ses.js";

/**
 * Every provider `flagpost serve` configures from its settings: the one list a new provider joins
 * (docs/architecture.md, "Adding a report intake"). An app that builds its own server passes
 * sources to the HTTP layer instead and needs no entry here.
 */
export const PROVIDER_INTAKES: readonly ProviderIntake[] = [sesIntake, sendgridIntake, mailgunIntake, postmarkIntake];
