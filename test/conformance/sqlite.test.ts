import { describeStorageConformance } from "../../adapters/testing/index.js";
import { kyselyHarness } from "./kysely-harness.js";

// Always runs: a temp-file database in WAL mode, removed afterwards.
describeStorageConformance(kyselyHarness("sqlite"));
