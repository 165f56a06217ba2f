import { describeScenarios } from "./support/scenarios.js";

// flagpost serve through a real Postfix, on PostgreSQL (FLAGPOST_TEST_PG_URL): every scenario of test/mta/support/scenarios.ts.
describeScenarios("postgres");
