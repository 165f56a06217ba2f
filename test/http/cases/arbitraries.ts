import fc from "fast-check";
import { ATTRIBUTE_OPERATORS } from "../../../src/flags/evaluation/index.js";

/** Random HTTP requests against the flag routes: mostly wrong, sometimes right, never polite. */

export const SEEDED_KEYS = ["alpha", "beta", "gamma"] as const;

export interface RandomRequest {
  method: string;
  path: string;
  /** "valid" = the full_access key, "reader" = flags:read only, "none", or a raw header value. */
  auth: { kind: "valid" | "reader" | "revoked" | "none" } | { kind: "raw"; value: string };
  contentType: string | undefined;
  body: string | undefined;
}

/** Header-safe text: printable ASCII (fetch refuses CR, LF and non-Latin-1 in header values). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

const validKey = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,24}$/);

/** A path segment where a flag key goes: seeded, plausible, unicode, percent-encoded or broken. */
const keySegment = fc.oneof(
  { arbitrary: fc.constantFrom(...SEEDED_KEYS, "nobody"), weight: 4 },
  { arbitrary: validKey, weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }).map(encodeURIComponent), weight: 2 },
  {
    arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 129, maxLength: 600 }).map(encodeURIComponent),
    weight: 1,
  },
  { arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "%00", "..", ".", "%2F", "a%2Fb", "%25", "%C3%28"), weight: 1 },
);

const path = fc.oneof(
  { arbitrary: fc.constant("/v1/flags"), weight: 3 },
  { arbitrary: keySegment.map((k) => `/v1/flags/${k}`), weight: 4 },
  { arbitrary: keySegment.map((k) => `/v1/flags/${k}/evaluate`), weight: 4 },
  { arbitrary: fc.tuple(keySegment, keySegment).map(([a, b]) => `/v1/flags/${a}/${b}`), weight: 1 },
  {
    arbitrary: fc.constantFrom("/v1", "/v1/", "/v1/flags/", "/v1//flags", "/v1/flags//evaluate", "/v1/FLAGS"),
    weight: 1,
  },
);

const query = fc.option(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom("limit", "cursor"), fc.string({ maxLength: 10 })),
        fc.oneof(
          fc.integer({ min: -5, max: 2000 }).map(String),
          fc.string({ maxLength: 30 }),
          fc.base64String({ maxLength: 40 }),
        ),
      ),
      { maxLength: 3 },
    )
    .map((pairs) => `?${new URLSearchParams(pairs).toString()}`),
  { nil: "" },
);

const anything = fc.jsonValue({ maxDepth: 3 });

const rule = fc.oneof(
  fc.record(
    {
      type: fc.constant("users"),
      userIds: fc.oneof(fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 }), anything),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      type: fc.constant("attribute"),
      attribute: fc.oneof(fc.constantFrom("plan", "userId", "version", "country"), fc.string(), anything),
      operator: fc.oneof(fc.constantFrom(...ATTRIBUTE_OPERATORS), fc.string({ maxLength: 12 })),
      value: fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.double(),
        fc.boolean(),
        fc.array(fc.oneof(fc.string(), fc.integer())),
        fc.constantFrom("1.2.3", "2024-01-01T00:00:00Z"),
        anything,
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      type: fc.constant("percentage"),
      percentage: fc.oneof(fc.double({ min: -10, max: 120 }), fc.integer({ min: 0, max: 100 }), anything),
    },
    { requiredKeys: [] },
  ),
  fc.record({ type: fc.string({ maxLength: 12 }) }),
  anything,
);

/** Objects shaped like a flag, a patch or a context, with some fields wrong. */
const nearlyValid = fc.record(
  {
    key: fc.oneof(validKey, fc.constantFrom(...SEEDED_KEYS), fc.string({ unit: "binary", maxLength: 140 }), anything),
    id: fc.oneof(fc.uuid(), anything),
    description: fc.oneof(fc.string({ unit: "binary", maxLength: 1100 }), anything),
    enabled: fc.oneof(fc.boolean(), anything),
    rules: fc.oneof(fc.array(rule, { maxLength: 4 }), anything),
    userId: fc.oneof(fc.string({ unit: "binary", maxLength: 210 }), anything),
    attributes: fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), anything, { maxKeys: 4 }), anything),
    extra: anything,
  },
  { requiredKeys: [] },
);

/** Bodies a route accepts: a flag, a patch or an evaluation context, so some requests succeed. */
const validRule = fc.oneof(
  fc.record({
    type: fc.constant("users"),
    userIds: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ type: fc.constant("percentage"), percentage: fc.integer({ min: 0, max: 100 }) }),
  fc.record({
    type: fc.constant("attribute"),
    attribute: fc.constant("plan"),
    operator: fc.constantFrom("equals", "not_equals"),
    value: fc.string({ maxLength: 8 }),
  }),
);
const validBody = fc.oneof(
  fc.record(
    {
      key: validKey,
      description: fc.string({ maxLength: 50 }),
      enabled: fc.boolean(),
      rules: fc.array(validRule, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      userId: fc.string({ minLength: 1, maxLength: 20 }),
      attributes: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean()), {
        maxKeys: 3,
      }),
    },
    { requiredKeys: [] },
  ),
);

const body = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: validBody.map((v) => JSON.stringify(v)), weight: 4 },
  { arbitrary: nearlyValid.map((v) => JSON.stringify(v)), weight: 6 },
  { arbitrary: anything.map((v) => JSON.stringify(v)), weight: 2 },
  // Garbage: not JSON, or JSON cut short.
  { arbitrary: fc.string({ unit: "binary", maxLength: 200 }), weight: 2 },
  {
    arbitrary: nearlyValid
      .map((v) => JSON.stringify(v))
      .chain((s) => fc.nat({ max: Math.max(0, s.length - 1) }).map((n) => s.slice(0, n))),
    weight: 1,
  },
  // Deep nesting, as arrays and as objects (inside a field the schema reads).
  { arbitrary: fc.integer({ min: 1, max: 50_000 }).map((n) => "[".repeat(n) + "]".repeat(n)), weight: 1 },
  {
    arbitrary: fc
      .integer({ min: 1, max: 50_000 })
      .map((n) => `{"attributes":{"plan":${'{"a":'.repeat(n)}1${"}".repeat(n)}}}`),
    weight: 1,
  },
  {
    arbitrary: fc
      .integer({ min: 1, max: 50_000 })
      .map((n) => `{"key":"deep","rules":${"[".repeat(n)}${"]".repeat(n)}}`),
    weight: 1,
  },
  // Huge strings, under and over the 1 MiB limit.
  {
    arbitrary: fc
      .constantFrom(10_000, 500_000, 1_100_000)
      .map((n) => JSON.stringify({ key: "huge", description: "é".repeat(n / 2) })),
    weight: 1,
  },
);

const contentType = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "application/merge-patch+json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "",
      "*/*",
    ),
    weight: 2,
  },
  { arbitrary: headerText, weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

const auth: fc.Arbitrary<RandomRequest["auth"]> = fc.oneof(
  { arbitrary: fc.constant({ kind: "valid" as const }), weight: 8 },
  {
    arbitrary: fc.constantFrom({ kind: "reader" as const }, { kind: "revoked" as const }, { kind: "none" as const }),
    weight: 2,
  },
  { arbitrary: headerText.map((value) => ({ kind: "raw" as const, value })), weight: 1 },
);

export const method = fc.oneof(
  { arbitrary: fc.constantFrom("GET", "POST", "PATCH", "DELETE"), weight: 8 },
  { arbitrary: fc.constantFrom("PUT", "HEAD", "OPTIONS"), weight: 2 },
);

export const randomRequest: fc.Arbitrary<RandomRequest> = fc
  .record({ method, path, query, auth, contentType, body })
  .map(({ method, path, query, auth, contentType, body }) => ({
    method,
    path: path + query,
    auth,
    contentType,
    // fetch refuses a body on GET and HEAD.
    body: method === "GET" || method === "HEAD" ? undefined : body,
  }));

/** Requests whose key is missing or wrong, for the auth-first property. */
export const unauthenticatedRequest: fc.Arbitrary<RandomRequest> = randomRequest.chain((request) =>
  fc
    .oneof(
      fc.constantFrom({ kind: "none" as const }, { kind: "revoked" as const }),
      headerText.map((value) => ({ kind: "raw" as const, value: `Bearer x${value}` })),
    )
    .map((auth) => ({ ...request, auth })),
);
