import { describe, expect, it } from "vitest";
import { commandHelp, commandOf, parseCommand, UsageError } from "../../cli/args.js";

function usageError(argv: string[]): string {
  try {
    parseCommand(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("CLI arguments", () => {
  it("parses each command with its options and arguments", () => {
    expect(parseCommand(["keys", "create", "--scopes", "flags:read", "--name=ci"])).toEqual({
      name: "keys create",
      options: { scopes: "flags:read", name: "ci" },
      positionals: [],
    });
    expect(parseCommand(["keys", "revoke", "abc"])).toMatchObject({ name: "keys revoke", positionals: ["abc"] });
    expect(parseCommand(["experiments", "results", "exp", "--metric", "buy", "--json"])).toMatchObject({
      name: "experiments results",
      options: { metric: "buy", json: true },
      positionals: ["exp"],
    });
  });

  it("answers --version, --help and per-command help", () => {
    expect(parseCommand(["--version"]).name).toBe("version");
    expect(parseCommand(["-v"]).name).toBe("version");
    expect(parseCommand([])).toMatchObject({ name: "help", topic: undefined });
    expect(parseCommand(["--help"])).toMatchObject({ name: "help", topic: undefined });
    expect(parseCommand(["keys", "create", "--help"])).toMatchObject({ name: "help", topic: "keys create" });
    expect(parseCommand(["help", "events", "purge"])).toMatchObject({ name: "help", topic: "events purge" });
    const help = commandHelp("keys create");
    expect(help).toMatch(/^Usage: flagpost keys create --scopes "<list>" \[--name <name>\]\n/);
    expect(help).toContain("--scopes");
    expect(help).not.toContain("--metric");
  });

  it("refuses mistakes in its own words, naming the option or argument", () => {
    expect(usageError(["launch"])).toBe('unknown command "launch"');
    expect(usageError(["serve", "--bogus"])).toBe("unknown option --bogus");
    expect(usageError(["serve", "-x"])).toBe("unknown option -x");
    expect(usageError(["serve", "--metric", "x"])).toBe('"serve" does not take --metric');
    expect(usageError(["keys", "create", "--scopes"])).toBe("--scopes needs a value");
    expect(usageError(["experiments", "results", "e", "--json=yes"])).toBe("--json takes no value");
    expect(usageError(["migrate", "now"])).toBe('"migrate" takes no arguments (got "now")');
    expect(usageError(["keys", "revoke", "a", "b"])).toBe('"keys revoke" takes 1 argument, got 2');
  });

  it("finds the command an argument list names, for the error's help hint", () => {
    expect(commandOf(["keys", "create", "--scopes", "x"])).toBe("keys create");
    expect(commandOf(["serve", "--bogus"])).toBe("serve");
    expect(commandOf(["launch"])).toBeUndefined();
  });
});
