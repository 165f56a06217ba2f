import { afterEach, describe, expect, it } from "vitest";
import { helpFor, parseCommand, USAGE, UsageError } from "../../cli/args.js";
import { listKeys } from "../../cli/keys.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { memoryStorage } from "../../src/memory/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import { runCli } from "../support/cli.js";

let fp: Flagpost | undefined;
afterEach(async () => fp?.close());

/** What a newcomer reads from the CLI itself (issue 25, item 7). */
describe("flagpost --help", () => {
  it("says what FLAGPOST_BOUNCE_DOMAIN does and lists FLAGPOST_BODY_BUDGET_BYTES", () => {
    expect(USAGE).toMatch(/FLAGPOST_BOUNCE_DOMAIN\n\s+a domain whose mail reaches this server/);
    expect(USAGE).toContain("bounces+<email id>-<tag>@<domain>");
    expect(USAGE).toMatch(/FLAGPOST_BODY_BUDGET_BYTES\n\s+request bodies held in memory at once \(100663296/);
  });

  it("lists the OFREP stream settings and says what FLAGPOST_SECRET_KEY keys, and what happens without it", () => {
    expect(USAGE).toMatch(
      /FLAGPOST_OFREP_STREAMS\n\s+on \(default\): OFREP bulk answers link an event stream; off: they do not/,
    );
    expect(USAGE).toMatch(/FLAGPOST_OFREP_STREAM_TOKEN_TTL\n\s+.* seconds, 60 to 86400 \(3600\)/);
    const secret = /FLAGPOST_SECRET_KEY\n((?: {20}.*\n)+)/.exec(USAGE)![1]!.replace(/\s+/g, " ");
    expect(secret).toContain("OFREP stream links");
    expect(secret).toContain("kept in the database, so shared by every process on it");
    expect(secret).toContain("with FLAGPOST_DB=:memory: a new secret at each start");
  });
});

describe("flagpost keys --help", () => {
  it("prints the help of the keys commands, not the whole usage", async () => {
    expect(parseCommand(["keys", "--help"])).toMatchObject({ name: "help", topic: "keys" });
    expect(parseCommand(["help", "keys"])).toMatchObject({ name: "help", topic: "keys" });
    const ran = await runCli(["keys", "--help"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(helpFor("keys"));
    for (const usage of ["keys create --scopes", "keys list", "keys revoke <id>"])
      expect(ran.stdout).toContain(`Usage: flagpost ${usage}`);
    expect(ran.stdout).not.toContain("Environment:");
    expect(ran.stdout).not.toContain("events purge");
  }, 60_000);

  it("asks which keys command when none is given", () => {
    expect(() => parseCommand(["keys"])).toThrow(new UsageError('"keys" needs a command: create, list or revoke'));
  });
});

describe("flagpost keys list", () => {
  it("prints a header row over aligned columns", async () => {
    fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    await fp.ready();
    const web = await fp.keys.create({ name: "web", scopes: ["flags:read", "flags:evaluate"] });
    const ops = await fp.keys.create({ name: "ops", scopes: ["full_access"] });
    await fp.keys.revoke(ops.id);
    const lines: string[] = [];
    await listKeys(fp, { out: (line) => lines.push(line) });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+SCOPES\s+NAME$/);
    const column = (title: string) => lines[0]!.indexOf(title);
    const webLine = lines.find((l) => l.startsWith(web.id))!;
    expect(webLine.indexOf("active")).toBe(column("STATUS"));
    expect(webLine.indexOf("flags:read flags:evaluate")).toBe(column("SCOPES"));
    expect(webLine.endsWith("web")).toBe(true);
    expect(lines.find((l) => l.startsWith(ops.id))!.indexOf("revoked ")).toBe(column("STATUS"));
  });
});
