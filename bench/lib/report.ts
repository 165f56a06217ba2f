import { readFileSync } from "node:fs";
import { cpus, totalmem, type as osType, release } from "node:os";

/** A Markdown table; numbers should already be formatted. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map(String).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

function versionOf(pkg: string): string {
  try {
    const url = new URL(`../../node_modules/${pkg}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
  } catch {
    return "not installed";
  }
}

/** Machine, date, Node and package versions: the header every results file starts with. */
export function machineReport(packages: string[]): string {
  const cpu = cpus();
  const lines = [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpu[0]?.model ?? "unknown cpu"} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${osType()} ${release()}`,
    `- node: ${process.version}`,
    `- packages: ${packages.map((p) => `${p} ${versionOf(p)}`).join(", ")}`,
  ];
  return lines.join("\n");
}
