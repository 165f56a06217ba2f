import { type DeliveryReport, FlagpostError } from "../../../src/internal.js";
import { type MailgunOptions, mailgunSource } from "../inbound/mailgun.js";
import { type PostmarkOptions, postmarkSource } from "../inbound/postmark.js";
import { type SendGridOptions, sendgridSource } from "../inbound/sendgrid.js";
import { type SesOptions, sesSource } from "../inbound/ses.js";
import type { InboundSource } from "../inbound/source.js";
import type { SignatureChecks } from "../inbound/freshness.js";
import { PROVIDER_AUTH, type ProviderRoute } from "../types.js";

/** What each provider's webhook needs to authenticate it; a provider left out answers 404. */
export interface InboundOptions {
  /** Amazon SES through SNS: the topic ARNs accepted (and, for tests, the HTTPS fetch). */
  ses?: SesOptions;
  /** SendGrid's signed event webhook: the verification key. */
  sendgrid?: SendGridOptions;
  /** Mailgun: the webhook signing key. */
  mailgun?: MailgunOptions;
  /** Postmark: the Basic credentials put in its webhook URL. */
  postmark?: PostmarkOptions;
}

/** Applies reports and says what became of each; `fp.emails.applyReports`. */
export type ApplyReports = (reports: DeliveryReport[]) => Promise<readonly { outcome: string }[]>;

/** SendGrid posts up to a few thousand events at once; SNS messages are at most 256 KiB. */
export const INBOUND_BODY_LIMIT = 5 * 1024 * 1024;

const PROVIDERS = ["ses", "sendgrid", "mailgun", "postmark"] as const;
type Provider = (typeof PROVIDERS)[number];

function sourceOf(provider: Provider, options: InboundOptions, checks: SignatureChecks): InboundSource | undefined {
  if (provider === "ses") return options.ses && sesSource({ clock: checks.clock, ...options.ses });
  if (provider === "sendgrid") return options.sendgrid && sendgridSource(options.sendgrid, checks);
  if (provider === "mailgun") return options.mailgun && mailgunSource(options.mailgun, checks);
  return options.postmark && postmarkSource(options.postmark);
}

/**
 * `POST /v1/inbound/{ses,sendgrid,mailgun,postmark}`: delivery reports pushed by a sending
 * provider. Each authenticates the provider its own way (see the sources), then applies the
 * reports (`checks` refuses stale signatures and reused Mailgun tokens); a report that matches no email is stored by `apply` and still answered 200, so the
 * provider does not retry it forever. The answer counts the outcomes:
 * `{data: {received, outcomes: {applied?, recorded?, ignored?, unmatched?}}}`.
 */
export function inboundRoutes(
  apply: ApplyReports,
  checks: SignatureChecks,
  options: InboundOptions = {},
): ProviderRoute[] {
  return PROVIDERS.map((provider) => {
    const source = sourceOf(provider, options, checks);
    return {
      method: "POST",
      path: `/v1/inbound/${provider}`,
      scope: PROVIDER_AUTH,
      style: "data",
      bodyLimit: INBOUND_BODY_LIMIT,
      async receive(request) {
        if (source === undefined)
          throw new FlagpostError("not_found", `Reports from ${provider} are not configured on this server`);
        const results = await apply(await source.receive(request));
        const outcomes: Record<string, number> = {};
        for (const { outcome } of results) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        return { status: 200, body: { data: { received: results.length, outcomes } } };
      },
    };
  });
}
