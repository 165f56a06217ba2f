import { z } from "zod";
import { limitField } from "../pagination.js";
import { parseIsoInstant } from "../time.js";
import type { EventRecord } from "../ports/storage/events.js";

/**
 * The wire shapes of events and event queries. Limits that docs/api.md leaves open are decided here and
 * written down in docs/events.md.
 */

export const MAX_NAME_LENGTH = 200;
/** Properties, measured as the UTF-8 bytes of their JSON text. */
export const MAX_PROPERTIES_BYTES = 32 * 1024;
export const MAX_BATCH_EVENTS = 1000;
/** A timestamp may lead the time of receipt by this much (client clocks run fast). */
export const MAX_FUTURE_MS = 24 * 60 * 60 * 1000;
/** The earliest timestamp accepted: 1970-01-01T00:00:00.000Z. */
export const MIN_TIMESTAMP_MS = 0;
export const DEFAULT_QUERY_LIMIT = 100;
export const MAX_QUERY_LIMIT = 1000;

// No C0 controls or DEL, and no UTF-16 surrogate without its pair (no database stores one as text).
const CLEAN_TEXT = /^(?:[^\u0000-\u001f\u007f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
const CURRENCY = /^[A-Z]{3}$/;

/** Event names and user ids: 1–200 characters, anything printable, compared exactly. */
export const eventNameSchema = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .regex(CLEAN_TEXT, { error: "must not contain control characters or unpaired surrogates" });

const TIMESTAMP_RULE =
  'must be an ISO 8601 date-time with a time zone, such as "2026-01-31T10:00:00Z" or "2026-01-31T12:00:00+02:00"';

/** Epoch ms of a timestamp as accepted: ISO 8601 text with a zone, or a valid Date; otherwise undefined. */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value === "string") return parseIsoInstant(value, { allowDateOnly: false });
  if (value instanceof Date && Number.isFinite(value.getTime())) return value.getTime();
  return undefined;
}

/**
 * An event's timestamp: ISO 8601 with a zone (a Date in process); milliseconds kept, finer digits
 * dropped. Its bounds depend on the time of receipt and are checked beside it (event-input.ts).
 */
export const timestampSchema = z.custom<string | Date>((value) => timestampMs(value) !== undefined, {
  error: TIMESTAMP_RULE,
});

const stringOrDate = (error: string) =>
  z.custom<string | Date>((value) => typeof value === "string" || value instanceof Date, { error });

const BOUND_RULE =
  'must be an ISO 8601 date ("2026-01-31", midnight UTC) or date-time with a time zone ("2026-01-31T10:00:00Z")';

/** A query bound (`from`, `to`): a date-time with a zone, or a bare date read as midnight UTC. */
/** A query window `from ≤ timestamp < to` must not be empty or reversed; both bounds are optional. */
export function refineWindow(
  query: { from?: number | undefined; to?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (query.from !== undefined && query.to !== undefined && query.from >= query.to) {
    ctx.addIssue({
      code: "custom",
      path: ["from"],
      message: 'must be before "to" (the window is from ≤ timestamp < to)',
    });
  }
}

export const boundSchema = stringOrDate(BOUND_RULE).transform((value, ctx) => {
  const ms = typeof value === "string" ? parseIsoInstant(value) : value.getTime();
  if (ms === undefined || !Number.isFinite(ms)) {
    ctx.issues.push({ code: "custom", message: BOUND_RULE, input: value });
    return z.NEVER;
  }
  return ms;
});

/** The reserved property names and their types, checked when present. */
export const reservedPropertySchemas = {
  revenue: z.number({ error: "must be a finite number" }),
  currency: z
    .string({ error: 'must be a string of 3 upper-case letters (an ISO 4217 code such as "EUR")' })
    .regex(CURRENCY, { error: 'must be 3 upper-case letters (an ISO 4217 code such as "EUR")' }),
  experimentId: z.string({ error: "must be a string" }),
  variant: z.string({ error: "must be a string" }),
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Properties: a plain JSON object whose reserved names, when present, have their types. The object
 * itself passes through unchanged (it is serialised as sent); the 32 KiB limit is checked on that
 * JSON text (event-input.ts), which is what is stored.
 */
export const propertiesSchema = z
  .custom<EventProperties>(isPlainObject, { error: "must be an object" })
  .check((ctx) => {
    const properties = ctx.value as Record<string, unknown>;
    for (const name of Object.keys(reservedPropertySchemas) as (keyof typeof reservedPropertySchemas)[]) {
      const value = properties[name];
      if (value === undefined || !Object.hasOwn(properties, name)) continue;
      const result = reservedPropertySchemas[name].safeParse(value);
      if (!result.success) {
        for (const issue of result.error.issues)
          ctx.issues.push({ code: "custom", message: issue.message, path: [name, ...issue.path], input: value });
      }
    }
  });

/** Event properties: any JSON object; the reserved names have these types. */
export interface EventProperties {
  revenue?: number;
  currency?: string;
  experimentId?: string;
  variant?: string;
  [name: string]: unknown;
}

export const trackEventSchema = z.strictObject({
  event: eventNameSchema,
  userId: eventNameSchema,
  timestamp: timestampSchema.optional(),
  properties: propertiesSchema.optional(),
});

/** What `track` takes (and one element of a batch). `timestamp` defaults to the time of receipt. */
export type TrackEventInput = z.input<typeof trackEventSchema>;

const EVENT_FIELDS: ReadonlySet<string> = new Set(["event", "userId", "timestamp", "properties"]);

function isName(value: unknown): boolean {
  return typeof value === "string" && value.length >= 1 && value.length <= MAX_NAME_LENGTH && CLEAN_TEXT.test(value);
}

/**
 * True when `raw` is plainly a valid event, decided without zod: the common case on the ingestion
 * path, where zod's generality costs more than the database write. It only ever says yes to what
 * `trackEventSchema` accepts, with the same output (the schema passes every field through as is);
 * anything it is unsure of goes to the schema, the source of every rule's message. The rules come
 * from the same constants, and test/events/event-schema.test.ts checks "yes here ⇒ yes there".
 */
export function isPlainlyValidEvent(raw: unknown): raw is z.output<typeof trackEventSchema> {
  if (!isPlainObject(raw)) return false;
  for (const key in raw) if (!EVENT_FIELDS.has(key)) return false;
  if (!isName(raw.event) || !isName(raw.userId)) return false;
  if (raw.timestamp !== undefined && timestampMs(raw.timestamp) === undefined) return false;
  const properties = raw.properties;
  if (properties === undefined) return true;
  if (!isPlainObject(properties)) return false;
  const { revenue, currency, experimentId, variant } = properties;
  return (
    (revenue === undefined || (typeof revenue === "number" && Number.isFinite(revenue))) &&
    (currency === undefined || (typeof currency === "string" && CURRENCY.test(currency))) &&
    (experimentId === undefined || typeof experimentId === "string") &&
    (variant === undefined || typeof variant === "string")
  );
}

/** The list given to `trackBatch`: 1 to 1,000 events, each checked on its own. */
export const eventListSchema = z.array(z.unknown()).min(1).max(MAX_BATCH_EVENTS);

/** Whether eventListSchema accepts `value` (an array of 1 to 1,000 elements, holes and all), told without zod. */
export function isBatchLength(value: unknown): boolean {
  return Array.isArray(value) && value.length >= 1 && value.length <= MAX_BATCH_EVENTS;
}

/**
 * The body of POST /v1/events/batch: `events` and nothing else. The list itself is checked once,
 * by `trackBatch` (eventListSchema, under the same path "events"), which the route hands it to.
 */
export const batchBodySchema = z.strictObject({ events: z.unknown() });

export const queryEventsSchema = z
  .strictObject({
    userId: eventNameSchema.optional(),
    event: eventNameSchema.optional(),
    from: boundSchema.optional(),
    to: boundSchema.optional(),
    // Over HTTP the limit arrives as a string; in process it is a number.
    limit: limitField(MAX_QUERY_LIMIT, DEFAULT_QUERY_LIMIT),
    cursor: z.string().max(512).optional(),
  })
  .superRefine(refineWindow);

/**
 * What `query` takes; over HTTP every value arrives as a string. `from` is inclusive, `to`
 * exclusive (an ISO 8601 date or date-time with a zone, or a Date); `limit` 1 to 1,000, default
 * 100; `cursor` is the previous page's `nextCursor`, with the same filters.
 */
export type QueryEventsInput = z.input<typeof queryEventsSchema>;

/** What `track` answers for each event (202 over HTTP). */
export interface AcceptedEvent {
  id: string;
  status: "accepted";
}

/** A stored event as `query` returns it (and GET /v1/events serves it): its times as ISO 8601 UTC text. */
export interface EventView extends Omit<EventRecord, "timestamp" | "receivedAt"> {
  timestamp: string;
  receivedAt: string;
}

export interface EventPage {
  data: EventView[];
  /** Pass back as `cursor` (with the same filters) for the next page; absent on the last page. */
  nextCursor?: string;
}
