import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * Starts the worker thread whose entry is `entryName` beside the module at `baseUrl` (the
 * caller's `import.meta.url`): `<entryName>.js` in the built package, where tsup emits each
 * thread's entry next to every chunk; `<entryName>.ts` from sources (tests, tsx), through a
 * bootstrap that registers tsx in the thread first: a worker inherits neither vitest's transform
 * nor, on Node 20, the hooks `--import tsx` installed in its parent.
 */
export function startModuleWorker(baseUrl: string, entryName: string, options: WorkerOptions = {}): Worker {
  if (!baseUrl.endsWith(".ts")) return new Worker(new URL(`./${entryName}.js`, baseUrl), options);
  // The ES module build of tsx's API (require.resolve would give its CommonJS one).
  const tsxApi = new URL("dist/esm/api/index.mjs", pathToFileURL(createRequire(baseUrl).resolve("tsx/package.json")))
    .href;
  const entry = new URL(`./${entryName}.ts`, baseUrl).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
