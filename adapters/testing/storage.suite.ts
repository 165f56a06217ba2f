import { afterAll, beforeAll, describe } from "vitest";
import { apiKeyCases } from "./cases/api-keys.js";
import { deliveryReportCases } from "./cases/delivery-reports.js";
import { domainEventCases } from "./cases/domain-events.js";
import { durabilityCases } from "./cases/durability.js";
import { eventCases } from "./cases/events.js";
import { emailCases } from "./cases/emails.js";
import { emailListCases } from "./cases/email-lists.js";
import { flagHistoryCases } from "./cases/flag-history.js";
import { flagScheduleCases } from "./cases/flag-schedules.js";
import { flagInsightCases } from "./cases/flag-insights.js";
import { experimentCases } from "./cases/experiments.js";
import { flagCases } from "./cases/flags.js";
import { flagValueCases } from "./cases/flag-values.js";
import { idempotencyCases } from "./cases/idempotency.js";
import { leaseCases } from "./cases/leases.js";
import { prerequisiteCases } from "./cases/prerequisites.js";
import { lifecycleCases } from "./cases/lifecycle.js";
import { sendingDomainCases } from "./cases/sending-domains.js";
import { sharedCases } from "./cases/shared.js";
import { suppressionCases } from "./cases/suppressions.js";
import { textFidelityCases } from "./cases/text-fidelity.js";
import { webhookLeaseCases } from "./cases/webhook-leases.js";
import { webhookEndpointCases } from "./cases/webhook-endpoints.js";
import { webhookCases } from "./cases/webhooks.js";
import type { StorageHarness } from "./harness.js";

/** The one storage suite: every backend test file calls this once with its harness. */
export function describeStorageConformance(harness: StorageHarness): void {
  describe(`storage conformance: ${harness.name}`, () => {
    beforeAll(async () => harness.setup?.());
    afterAll(async () => harness.teardown?.());
    flagCases(harness);
    flagValueCases(harness);
    flagHistoryCases(harness);
    prerequisiteCases(harness);
    flagScheduleCases(harness);
    flagInsightCases(harness);
    apiKeyCases(harness);
    idempotencyCases(harness);
    durabilityCases(harness);
    lifecycleCases(harness);
    sharedCases(harness);
    eventCases(harness);
    emailCases(harness);
    textFidelityCases(harness);
    leaseCases(harness);
    experimentCases(harness);
    domainEventCases(harness);
    webhookEndpointCases(harness);
    webhookCases(harness);
    webhookLeaseCases(harness);
    suppressionCases(harness);
    deliveryReportCases(harness);
    emailListCases(harness);
    sendingDomainCases(harness);
  });
}
