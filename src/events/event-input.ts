import type { z } from "zod";
import type { ErrorDetail } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { breaksNoRule, inputProblem } from "../input-policy.js";
import type { NewEvent } from "../ports/storage/index.js";
import { checkInput } from "../validation.js";
import {
  isPlainlyValidEvent,
  MAX_FUTURE_MS,
  MAX_PROPERTIES_BYTES,
  MIN_TIMESTAMP_MS,
  timestampMs,
  trackEventSchema,
} from "./schema.js";

/**
 * Turns one event as a caller sent it into the record to append, or into the details of what is
 * wrong with it. The checks that need more than the schema live here: the timestamp's bounds (the
 * future one needs the time of receipt) and the properties' size, measured on the very JSON text
 * that is stored.
 */

function pathOf(prefix: readonly PropertyKey[], field: string): string {
  return [...prefix, field].map(String).join(".");
}

/**
 * The record for `raw`, or undefined after pushing to `details` every rule it breaks (paths start
 * with `prefix`, e.g. `events.3`).
 */
export function prepareEvent(
  raw: unknown,
  receiptMs: number,
  prefix: readonly PropertyKey[],
  details: ErrorDetail[],
): NewEvent | undefined {
  let value: z.output<typeof trackEventSchema>;
  // The fast path skips zod, not the storage rules every input obeys. A plainly valid event's
  // keys, names and timestamp text obey them already (CLEAN_TEXT, ASCII digits): only its
  // properties (and a Date's own keys, however odd), one level down, are left to walk.
  if (
    isPlainlyValidEvent(raw) &&
    (typeof raw.timestamp !== "object" || breaksNoRule(raw.timestamp, 1)) &&
    (raw.properties === undefined || breaksNoRule(raw.properties, 1))
  ) {
    value = raw;
  } else {
    const problem = inputProblem(raw, prefix);
    if (problem) {
      details.push(problem);
      return undefined;
    }
    const checked = checkInput(trackEventSchema, raw, prefix as PropertyKey[]);
    if (!checked.ok) {
      details.push(...checked.details);
      return undefined;
    }
    value = checked.value;
  }
  const { event, userId, timestamp, properties } = value;
  let ok = true;
  const ms = timestamp === undefined ? receiptMs : timestampMs(timestamp)!;
  if (ms > receiptMs + MAX_FUTURE_MS) {
    details.push({
      path: pathOf(prefix, "timestamp"),
      message: "must not be more than 24 hours after the time of receipt",
    });
    ok = false;
  } else if (ms < MIN_TIMESTAMP_MS) {
    details.push({ path: pathOf(prefix, "timestamp"), message: "must not be before 1970-01-01T00:00:00Z" });
    ok = false;
  }
  // The schema passes the caller's object through as is: what is serialised is what was sent.
  let propertiesJson = "{}";
  if (properties !== undefined) {
    try {
      propertiesJson = JSON.stringify(properties);
    } catch {
      details.push({
        path: pathOf(prefix, "properties"),
        message: "must be serialisable as JSON (no cycles, no BigInt)",
      });
      return undefined;
    }
    // A UTF-16 unit is at most 3 bytes of UTF-8: short texts need no exact count.
    if (propertiesJson.length * 3 > MAX_PROPERTIES_BYTES) {
      const bytes = Buffer.byteLength(propertiesJson, "utf8");
      if (bytes > MAX_PROPERTIES_BYTES) {
        details.push({
          path: pathOf(prefix, "properties"),
          message: `must be at most 32 KiB (32,768 bytes) as JSON; got ${bytes} bytes`,
        });
        ok = false;
      }
    }
  }
  if (!ok) return undefined;
  return {
    id: uuidv7(receiptMs),
    event,
    userId,
    timestamp: ms,
    receivedAt: receiptMs,
    propertiesJson,
  };
}
