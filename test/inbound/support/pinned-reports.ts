import { readdir, readFile } from "node:fs/promises";
import type { DeliveryReport } from "../../../src/emails/index.js";

/**
 * Pinned reports of the fixtures in test/inbound/fixtures/, shared by the pin tables of
 * report-parser.test.ts (MIME structure), readers-provider.test.ts (mailbox providers) and the
 * MTA readers' table.
 */

const FIXTURES = new URL("../fixtures/", import.meta.url);

export const fixture = (name: string): Promise<Buffer> => readFile(new URL(name, FIXTURES));
/** The email id of a fixture: `id("5")` is the older fixtures' `…6a75`, `id("b1e")` the newer ones' `…6b1e`. */
export const id = (last: string): string =>
  `0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6${last.length === 1 ? `a7${last}` : last}`;
export const acmeMessageId = (last: string): string => `<${id(last)}@acme.example>`;

/** Fields the classifier may derive from the server's words (src/emails/bounce-classification.ts). */
const DERIVED = ["reason", "replyCode", "command"] as const;

/**
 * What a reader and the parser decide, without the classifier's verdict: never `bounce`, whose
 * hard or soft follows from the reason (tested with the classifier), and `reason`, `replyCode`
 * and `command` only where the pin names them: where the reader finds them itself (a provider's
 * own words, the reply it quotes, the command it names). The classifier may add them from the
 * words elsewhere. The verdict must still be there and agree with itself.
 */
export function withoutVerdict(reports: DeliveryReport[], pinned: DeliveryReport[]): DeliveryReport[] {
  return reports.map((report, index) => {
    const { bounce, ...rest } = report;
    if (report.type === "bounced") {
      if (bounce === undefined || bounce.reason !== report.reason)
        throw new Error(`report ${index} has no matching bounce`);
    } else if (bounce !== undefined) throw new Error(`report ${index} is not a bounce but has one`);
    if (report.type !== "bounced" && report.type !== "delayed") return rest;
    const facts: Partial<DeliveryReport> = { ...rest };
    for (const name of DERIVED) if (pinned[index]?.[name] === undefined) delete facts[name];
    return facts as DeliveryReport;
  });
}

/**
 * The fixtures some pin table holds: a test/inbound/*.test.ts file, or a JSON table beside the
 * fixtures (fixtures/*.json, the MTA readers'), each keyed by the fixture's name (`"name.eml": [`
 * or `"name.eml": {`). Reading the files, rather than importing them, keeps each test file's
 * tests in that file alone.
 */
export async function pinnedFixtureNames(): Promise<Set<string>> {
  const folder = new URL("../", import.meta.url);
  const tables = [
    ...(await readdir(folder)).filter((f) => f.endsWith(".test.ts")).map((f) => new URL(f, folder)),
    ...(await readdir(FIXTURES)).filter((f) => f.endsWith(".json")).map((f) => new URL(f, FIXTURES)),
  ];
  const names = new Set<string>();
  for (const table of tables) {
    const source = await readFile(table, "utf8");
    for (const match of source.matchAll(/^\s*"([\w.-]+\.eml)":\s*[[{]/gm)) names.add(match[1]!);
  }
  return names;
}
