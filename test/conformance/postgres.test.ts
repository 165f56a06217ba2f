import { describeIfBackend } from "../support/databases.js";
import { describeStorageConformance } from "../../adapters/testing/index.js";
import { kyselyHarness } from "./kysely-harness.js";

// Runs in a schema of its own, dropped afterwards, when FLAGPOST_TEST_PG_URL is set.
describeIfBackend("postgres", "storage conformance: postgres", () =>
  describeStorageConformance(kyselyHarness("postgres")),
);
