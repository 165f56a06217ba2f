import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { fencedBlocks } from "../../support/markdown.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The doc whose provider set-up the browser test runs, so that what readers copy is what is tested. */
export const BROWSER_DOC = join(ROOT, "docs", "clients-browser.md");

/** Text only the set-up block of docs/clients-browser.md contains. */
const SETUP_MARK = "export function startFlags";

/** The ```ts block of docs/clients-browser.md that sets the provider up (it exports `startFlags`). */
export function docSetupBlock(): string {
  const blocks = fencedBlocks(readFileSync(BROWSER_DOC, "utf8"), "ts").filter((code) => code.includes(SETUP_MARK));
  if (blocks.length !== 1) throw new Error(`expected one ts block with "${SETUP_MARK}" in ${BROWSER_DOC}`);
  return blocks[0]!;
}

/**
 * The official `@openfeature/web-sdk` and `@openfeature/ofrep-web-provider`, unchanged, bundled for
 * the browser with the doc's set-up block: a script that puts `startFlags`, `OpenFeature` and
 * `ProviderEvents` on `window.flagpostTest`. Built in memory at test time; nothing is written.
 */
export async function bundleWebClient(): Promise<string> {
  const entry = [
    'import { startFlags } from "flagpost-doc:setup";',
    'import { OpenFeature, ProviderEvents } from "@openfeature/web-sdk";',
    "globalThis.flagpostTest = { startFlags, OpenFeature, ProviderEvents };",
  ].join("\n");
  const result = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: "js" },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    logLevel: "silent",
    plugins: [
      {
        name: "flagpost-doc",
        setup(plugin) {
          plugin.onResolve({ filter: /^flagpost-doc:setup$/ }, () => ({ path: "setup.ts", namespace: "flagpost-doc" }));
          plugin.onLoad({ filter: /.*/, namespace: "flagpost-doc" }, () => ({
            contents: docSetupBlock(),
            loader: "ts",
            resolveDir: ROOT,
          }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}
