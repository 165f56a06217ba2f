/** The seam adapters and the CLI use for scheduled flag changes and their worker. */
export type { CreateScheduleInput } from "./flag-schedules.js";
export { ScheduleWorker } from "./schedule-worker.js";
