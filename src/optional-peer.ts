import { FlagpostError } from "./errors.js";

/**
 * The drivers, frameworks and SDKs flagpost adapts to are optional peer dependencies: the app
 * installs the ones it uses. Without one, Node's own error ("Cannot find package 'kysely'
 * imported from …/dist/chunk-X.js") names a file inside flagpost and no remedy; these helpers
 * name the entry and the command instead.
 */

/** The package Node could not find, when `error` is a failed import of a bare package name. */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined;
  // ESM: "Cannot find package 'kysely' imported from …"; CommonJS: "Cannot find module 'pg'".
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(error.message)?.[1];
  if (name === undefined || name.startsWith(".") || name.startsWith("/")) return undefined;
  const parts = name.split("/");
  return name.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The one message for missing peers, all of them at once, so one install fixes it:
 * `flagpost/inbound needs the packages mailparser and smtp-server: npm install mailparser smtp-server`.
 */
function peerMissingError(user: string, names: readonly string[], cause: unknown): FlagpostError {
  const listed =
    names.length === 1
      ? `the package ${names[0]}`
      : `the packages ${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return new FlagpostError("unavailable", `${user} needs ${listed}: npm install ${names.join(" ")}`, { cause });
}

/** Which of `peers` cannot be imported either, besides `missing` (the one Node named). */
async function allMissing(peers: readonly string[], missing: string): Promise<string[]> {
  const names: string[] = [];
  for (const peer of peers) {
    if (peer === missing) names.push(peer);
    else await import(peer).catch((error: unknown) => missingPackage(error) === peer && names.push(peer));
  }
  return names;
}

/**
 * Runs `importer` (a dynamic import of an adapter's modules) and turns "one of `peers` is not
 * installed" into {@link peerMissingError}, naming every peer that is missing (Node stops at the
 * first); any other failure is rethrown as it is.
 */
export async function importWithPeers<T>(
  user: string,
  peers: readonly string[],
  importer: () => Promise<T>,
): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    const name = missingPackage(error);
    if (name !== undefined && peers.includes(name)) throw peerMissingError(user, await allMissing(peers, name), error);
    throw error;
  }
}
