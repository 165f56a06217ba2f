import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../cli/args.js";

/**
 * README's CLI section is where a user of `flagpost serve` looks for a setting or a command: each
 * environment variable and command that `flagpost --help` names must be there too.
 */
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("README's CLI section", () => {
  it("names every environment variable flagpost --help names", () => {
    const variables = [...new Set(USAGE.match(/FLAGPOST_[A-Z_]+[A-Z]/g) ?? [])];
    expect(variables.length).toBeGreaterThan(20);
    // README may shorten a family to `FLAGPOST_EMAIL_CONCURRENCY` / `_LEASE_MS`: such a suffix counts.
    const missing = variables.filter((name) => {
      if (README.includes(name)) return false;
      const suffixes = [...name.matchAll(/_/g)]
        .map((m) => name.slice(m.index))
        .filter((s) => s.length < name.length - 9);
      return !suffixes.some((suffix) => README.includes(`\`${suffix}\``));
    });
    expect(missing).toEqual([]);
  });

  it("lists every command flagpost --help lists", () => {
    const commands = [...USAGE.matchAll(/^ {2}([a-z]+(?: [a-z]+)?)(?= |$)/gm)].map((m) => m[1]!);
    expect(commands).toContain("flags stale");
    const missing = commands.filter((command) => !README.includes(`flagpost ${command}`));
    expect(missing).toEqual([]);
  });
});
