import type { Flagpost } from "../src/flagpost.js";
import { isScope, type Scope } from "../src/auth/index.js";
import { UsageError } from "./args.js";

export interface Output {
  out(line: string): void;
}

/** "flags:read, flags:evaluate" or "flags:read flags:evaluate" → scopes, each checked. */
export function parseScopes(text: string | undefined): Scope[] {
  if (text === undefined)
    throw new UsageError('keys create needs --scopes, e.g. --scopes "flags:evaluate events:write"');
  const scopes = text.split(/[\s,]+/).filter((s) => s.length > 0);
  if (scopes.length === 0) throw new UsageError("--scopes is empty");
  for (const s of scopes) if (!isScope(s)) throw new UsageError(`Unknown scope "${s}"`);
  return scopes as Scope[];
}

export async function createKey(fp: Flagpost, scopes: Scope[], name: string | undefined, io: Output): Promise<void> {
  const created = await fp.keys.create({ scopes, name: name ?? "" });
  io.out(`id: ${created.id}`);
  io.out(`scopes: ${created.scopes.join(" ")}`);
  io.out("The key is shown only this once:");
  io.out(created.key); // last line, so `flagpost keys create … | tail -n 1` captures it
}

/** One row per key under a header (nothing at all when there is no key), columns aligned. */
export async function listKeys(fp: Flagpost, io: Output): Promise<void> {
  const rows = (await fp.keys.list()).map((k) => [
    k.id,
    k.revokedAt === undefined ? "active" : `revoked ${new Date(k.revokedAt).toISOString()}`,
    k.scopes.join(" "),
    k.name,
  ]);
  if (rows.length === 0) return;
  const header = ["ID", "STATUS", "SCOPES", "NAME"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < cells.length - 1 ? cell.padEnd(widths[i]!) : cell))
      .join("  ")
      .trimEnd();
  io.out(line(header));
  for (const row of rows) io.out(line(row));
}

/**
 * FLAGPOST_API_KEY (when set and not empty) makes sure that exact key exists with full_access. Without it, and with no key
 * stored at all, a first key is created and printed once, so a fresh `npm start` is usable.
 */
export async function ensureStartupKey(fp: Flagpost, envKey: string | undefined, io: Output): Promise<void> {
  if (envKey !== undefined && envKey !== "") {
    if (envKey.length < 16) throw new UsageError("FLAGPOST_API_KEY must be at least 16 characters");
    const { key } = await fp.keys.ensure(envKey, ["full_access"], "FLAGPOST_API_KEY");
    if (key.revokedAt !== undefined) throw new UsageError("FLAGPOST_API_KEY names a revoked key; choose another");
    return;
  }
  if ((await fp.keys.list()).length > 0) return;
  const created = await fp.keys.create({ scopes: ["full_access"], name: "first key" });
  io.out("");
  io.out("Created an API key with full_access. It is shown only this once; keep it:");
  io.out("");
  io.out(`  ${created.key}`);
  io.out("");
}
