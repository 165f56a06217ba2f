import { describe } from "vitest";
import type { Variant } from "../../support/frameworks.js";
import { authCases } from "./auth.js";
import { dashboardCases } from "./dashboard.js";
import { errorCases } from "./errors.js";
import { flagCrudCases } from "./flags-crud.js";
import { flagEvaluateCases } from "./flags-evaluate.js";
import { flagHistoryCases } from "./flags-history.js";
import { flagListCases } from "./flags-list.js";
import { flagInsightCases } from "./flags-insights.js";
import { flagPrerequisiteCases } from "./flags-prerequisites.js";
import { flagScheduleCases } from "./flags-schedules.js";
import { flagStreamCases } from "./flags-stream.js";
import { internalErrorCases } from "./internal-error.js";
import { loggingCases } from "./logging.js";
import { type PropertyOptions, propertyCases } from "./properties.js";
import { rateLimitCases } from "./rate-limit.js";

/** Every shared HTTP case, against one framework's real server. */
export function httpCases(variant: Variant, options: PropertyOptions = { numRuns: 100 }): void {
  describe(variant.name, () => {
    flagListCases(variant.start);
    describe("flag routes", () => flagCrudCases(variant.start));
    flagEvaluateCases(variant.start);
    flagHistoryCases(variant.start);
    flagPrerequisiteCases(variant.start);
    flagScheduleCases(variant.start);
    flagStreamCases(variant.start);
    flagInsightCases(variant.start);
    authCases(variant.start);
    errorCases(variant.start);
    rateLimitCases(variant.start);
    internalErrorCases(variant.start);
    loggingCases(variant.start);
    dashboardCases(variant.start);
    propertyCases(variant.start, options);
  });
}
