/**
 * Every file the dashboard serves, by its name below the mount path, with its media type.
 * This list is the whole surface: nothing outside it is ever read or served, so no request path
 * can reach another file. The package build embeds exactly these files (embed-plugin.ts).
 */
export const DASHBOARD_FILES = {
  "index.html": "text/html; charset=utf-8",
  "pages.css": "text/css; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8",
  "experiments.css": "text/css; charset=utf-8",
  "flag-governance.css": "text/css; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "api.js": "text/javascript; charset=utf-8",
  "dom.js": "text/javascript; charset=utf-8",
  "flag-list.js": "text/javascript; charset=utf-8",
  "flag-editor.js": "text/javascript; charset=utf-8",
  "flag-actions.js": "text/javascript; charset=utf-8",
  "leave-guard.js": "text/javascript; charset=utf-8",
  "rule-editor.js": "text/javascript; charset=utf-8",
  "rule-state.js": "text/javascript; charset=utf-8",
  "form-fields.js": "text/javascript; charset=utf-8",
  "operators.js": "text/javascript; charset=utf-8",
  "operator-table.js": "text/javascript; charset=utf-8",
  "webhook-event-types.js": "text/javascript; charset=utf-8",
  "try-it.js": "text/javascript; charset=utf-8",
  "pages.js": "text/javascript; charset=utf-8",
  "page-kit.js": "text/javascript; charset=utf-8",
  "paged-list.js": "text/javascript; charset=utf-8",
  "mail-api.js": "text/javascript; charset=utf-8",
  "experiment-list.js": "text/javascript; charset=utf-8",
  "email-status.js": "text/javascript; charset=utf-8",
  "email-list.js": "text/javascript; charset=utf-8",
  "email-view.js": "text/javascript; charset=utf-8",
  "event-detail.js": "text/javascript; charset=utf-8",
  "suppressions.js": "text/javascript; charset=utf-8",
  "webhook-list.js": "text/javascript; charset=utf-8",
  "webhook-view.js": "text/javascript; charset=utf-8",
  "webhook-settings.js": "text/javascript; charset=utf-8",
  "experiment-view.js": "text/javascript; charset=utf-8",
  "experiment-chart.js": "text/javascript; charset=utf-8",
  "experiment-format.js": "text/javascript; charset=utf-8",
  "flag-api.js": "text/javascript; charset=utf-8",
  "flag-form-errors.js": "text/javascript; charset=utf-8",
  "flag-panels.js": "text/javascript; charset=utf-8",
  "flag-history.js": "text/javascript; charset=utf-8",
  "history-diff.js": "text/javascript; charset=utf-8",
  "flag-insights.js": "text/javascript; charset=utf-8",
  "sparkline.js": "text/javascript; charset=utf-8",
  "list-sparklines.js": "text/javascript; charset=utf-8",
  "flag-schedules.js": "text/javascript; charset=utf-8",
  "prerequisite-editor.js": "text/javascript; charset=utf-8",
  "variant-editor.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
} as const;

export type DashboardFile = keyof typeof DASHBOARD_FILES;

export const DASHBOARD_FILE_NAMES = Object.keys(DASHBOARD_FILES) as DashboardFile[];
