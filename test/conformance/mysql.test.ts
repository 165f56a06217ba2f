import { describeIfBackend } from "../support/databases.js";
import { describeStorageConformance } from "../../adapters/testing/index.js";
import { kyselyHarness } from "./kysely-harness.js";

// Runs in a database of its own, dropped afterwards, when FLAGPOST_TEST_MYSQL_URL is set.
describeIfBackend("mysql", "storage conformance: mysql", () => describeStorageConformance(kyselyHarness("mysql")));
