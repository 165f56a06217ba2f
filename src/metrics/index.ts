/** The seam adapters and the CLI use for counters and the metrics snapshot. */
export type { MetricsSnapshot } from "./counters.js";
