/** The seam adapters and the CLI use for flag insights: evaluation counts and stale flags. */
export { DEFAULT_STALE_AFTER_DAYS } from "./flag-insights.js";
export { DEFAULT_INSIGHTS_FLUSH_MS } from "./insights-recorder.js";
