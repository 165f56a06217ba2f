import { describeSmokeRuns } from "./support/bench-smoke.js";

describeSmokeRuns(1);
