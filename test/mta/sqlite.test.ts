import { describeScenarios } from "./support/scenarios.js";

// flagpost serve through a real Postfix, on SQLite: every scenario of test/mta/support/scenarios.ts.
describeScenarios("sqlite");
