import { type DeliveryReport, REPORT_SOURCE_NAME, reportSourceRegistry } from "../../../src/emails/index.js";
import { FlagpostError } from "../../../src/errors.js";
import type { ReportSource, SignatureChecks } from "../../../src/ports/report-source.js";
import { PROVIDER_AUTH, type ProviderRoute, type RouteResult } from "../types.js";

/** Applies reports and says what became of each; `fp.emails.applyReports`. */
export type ApplyReports = (reports: DeliveryReport[]) => Promise<readonly { outcome: string }[]>;

/** SendGrid posts up to a few thousand events at once; SNS messages are at most 256 KiB. */
export const INBOUND_BODY_LIMIT = 5 * 1024 * 1024;

function route(path: string, receive: ProviderRoute["receive"]): ProviderRoute {
  return { method: "POST", path, scope: PROVIDER_AUTH, style: "data", bodyLimit: INBOUND_BODY_LIMIT, receive };
}

/**
 * `POST /v1/inbound/{name}` for each report source handed in (`inbound` in the HTTP options: the
 * providers of `flagpost/inbound/providers`, or an app's own). The sources come as a list, so this
 * file names none of them. Each source authenticates its request its own way (with `checks`:
 * stale signatures and reused tokens are refused), then its reports are applied; a report that
 * matches no email is stored by `apply` and still answered 200, so the provider does not retry it
 * forever. The answer counts the outcomes:
 * `{data: {received, outcomes: {applied?, recorded?, ignored?, unmatched?}}}`.
 * Every other name answers 404 `not_found` ("Reports from … are not configured on this server").
 * Each source gets its own route (its own rate-limit bucket and metrics label).
 */
export function inboundRoutes(
  apply: ApplyReports,
  checks: SignatureChecks,
  sources: readonly ReportSource[] = [],
): ProviderRoute[] {
  const registry = reportSourceRegistry(sources);
  const served = [...registry.values()].map((source) =>
    route(`/v1/inbound/${source.name}`, async (request): Promise<RouteResult> => {
      const results = await apply(await source.receive(request, checks));
      const outcomes: Record<string, number> = {};
      for (const { outcome } of results) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      return { status: 200, body: { data: { received: results.length, outcomes } } };
    }),
  );
  // After the sources: the router takes the first match.
  const unknown = route("/v1/inbound/:source", async (request) => {
    const name = request.params.source ?? "";
    // A name that could not be a source's is not echoed back.
    const what = REPORT_SOURCE_NAME.test(name) ? name : "that source";
    throw new FlagpostError("not_found", `Reports from ${what} are not configured on this server`);
  });
  return [...served, unknown];
}
