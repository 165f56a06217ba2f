import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as publicEntry from "../../src/index.js";

/**
 * The names `flagpost` exports, pinned. A change here is a decision about the public surface
 * (README's "Install" and docs/api.md say what users may rely on): update the list on purpose.
 * Internals shared with adapters and tests are reached through src/ports and each feature's index.ts, which package.json does not export.
 */
const RUNTIME_NAMES = [
  "FlagpostError",
  "TransportError",
  "createFlagpost",
  "evaluate",
  "isFlagpostError",
  "isTransportError",
  "memoryStorage",
];

/** Every exported name, types included, as the TypeScript compiler sees src/index.ts. */
function exportedNames(): string[] {
  const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
  const config = ts.readConfigFile(fileURLToPath(new URL("../../tsconfig.json", import.meta.url)), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(
    config.config,
    ts.sys,
    fileURLToPath(new URL("../..", import.meta.url)),
  ).options;
  const program = ts.createProgram([entry], options);
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.name)
    .sort();
}

describe("the public surface of flagpost", () => {
  it("exports exactly the pinned runtime names", () => {
    expect(Object.keys(publicEntry).sort()).toEqual(RUNTIME_NAMES);
  });

  it("exports the facade, the services' types and the ports, and no internal helper", () => {
    const names = exportedNames();
    expect(names).toEqual(
      expect.arrayContaining([
        ...RUNTIME_NAMES,
        "Flagpost",
        "FlagpostOptions",
        "Storage",
        "MailTransport",
        "ReportParser",
        "ReportSource",
        "Logger",
        "Clock",
        "FlagStore",
        "EmailService",
        "EventTracker",
      ]),
    );
    for (const internal of [
      "murmur3Utf8",
      "runIdempotent",
      "OutboxWorker",
      "StoreSync",
      "base64Size",
      "sendEmailSchema",
      "createFlagSchema",
      "parseInput",
      "jsonLogger",
      "uuidv7",
    ]) {
      expect(names, internal).not.toContain(internal);
    }
    // Pinned: the whole list, types included.
    expect(names).toMatchSnapshot();
  });
});
