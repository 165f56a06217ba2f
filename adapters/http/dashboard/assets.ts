import { readFileSync } from "node:fs";
import { DASHBOARD_FILE_NAMES, type DashboardFile } from "./files.js";

/**
 * The dashboard's files as text. Running from source (vitest, tsx) this reads `public/` next to
 * this module. The package build swaps this module for one that embeds the same files
 * (embed-plugin.ts, wired in tsup.config.ts), so `dist/` reads nothing from disk at run time and
 * keeps working when an app bundles it again. Both versions export exactly this function.
 */
export function loadDashboardFiles(): Map<DashboardFile, string> {
  return new Map(
    DASHBOARD_FILE_NAMES.map((name) => [name, readFileSync(new URL(`./public/${name}`, import.meta.url), "utf8")]),
  );
}
