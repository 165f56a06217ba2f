import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Options } from "tsup";
import { DASHBOARD_FILE_NAMES } from "./files.js";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/** The module the plugin replaces: adapters/http/dashboard/assets.ts, on any platform. */
const ASSETS_MODULE = /[\\/]adapters[\\/]http[\\/]dashboard[\\/]assets\.ts$/;

/**
 * Build-time only (tsup.config.ts; never shipped): replaces assets.ts with a module that holds the
 * dashboard's files as string constants, so the built package serves them without reading disk.
 */
export function embedDashboardFiles(): EsbuildPlugin {
  return {
    name: "flagpost-embed-dashboard",
    setup(build) {
      build.onLoad({ filter: ASSETS_MODULE }, (args) => {
        const dir = join(dirname(args.path), "public");
        const paths = DASHBOARD_FILE_NAMES.map((name) => join(dir, name));
        const entries = DASHBOARD_FILE_NAMES.map((name, i) => [name, readFileSync(paths[i]!, "utf8")]);
        const contents =
          "// Generated at build time from adapters/http/dashboard/public/ (see embed-plugin.ts).\n" +
          `const FILES = ${JSON.stringify(entries)};\n` +
          "export function loadDashboardFiles() { return new Map(FILES); }\n";
        return { contents, loader: "js", watchFiles: paths };
      });
    },
  };
}
