import type { FlagpostOptions } from "../src/flagpost.js";
import { UsageError } from "./args.js";

/**
 * How `flagpost serve` applies delivery reports, from the environment:
 * `FLAGPOST_SOFT_BOUNCE_SUPPRESSION=count/days` (e.g. `3/7`) suppresses an address after that many
 * soft bounces about it within that many days (unset: soft bounces never suppress), and
 * `FLAGPOST_SECRET_KEY` keys the VERP tags and unsubscribe tokens (unset: a secret generated once
 * and kept in the database), and `FLAGPOST_PUBLIC_URL` is where unsubscribe links point.
 */
type ReportSettings = Pick<FlagpostOptions, "suppression" | "secretKey" | "publicUrl">;

export function reportSettingsFrom(env: NodeJS.ProcessEnv): ReportSettings {
  const settings: ReportSettings = {};
  const secret = env.FLAGPOST_SECRET_KEY;
  if (secret !== undefined && secret.trim() !== "") {
    if (secret.length < 16) throw new UsageError("FLAGPOST_SECRET_KEY must be at least 16 characters long");
    settings.secretKey = secret;
  }
  const publicUrl = env.FLAGPOST_PUBLIC_URL?.trim();
  if (publicUrl) {
    if (!/^https?:\/\/[^\s<>?#]+$/.test(publicUrl))
      throw new UsageError(
        `FLAGPOST_PUBLIC_URL must be an http(s) URL without query or fragment, such as "https://mail.example.com", not "${publicUrl}"`,
      );
    settings.publicUrl = publicUrl;
  }
  const soft = env.FLAGPOST_SOFT_BOUNCE_SUPPRESSION?.trim();
  if (soft) {
    const parts = soft.split("/");
    const [count, days] = parts.map((p) => Number(p.trim()));
    if (
      parts.length !== 2 ||
      !Number.isInteger(count) ||
      count! < 1 ||
      count! > 1000 ||
      !Number.isFinite(days) ||
      days! <= 0 ||
      days! > 365
    )
      throw new UsageError(
        `FLAGPOST_SOFT_BOUNCE_SUPPRESSION must be "count/days", such as "3/7" (count 1–1000, days up to 365), not "${soft}"`,
      );
    settings.suppression = { softBounces: { count: count!, days: days! } };
  }
  return settings;
}
