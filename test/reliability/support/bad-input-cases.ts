import { POISON_NAMES, type PoisonName, STRING_POISON } from "./poison.js";

/**
 * Every place a caller's value enters flagpost over HTTP, as a JSON template with one `$` where a
 * value goes, and the field an error must name when that value is refused. `{seed}` is a flag and
 * `{email}` an email that exist on every backend. The route list in bad-input.test.ts checks that
 * each route with a body or parameters appears here.
 */
export interface FieldCase {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  /** The body with `$` for the value; undefined for routes without a body. */
  body: string;
  /** The detail path (or, for email routes, the quoted field in the message) a refusal names. */
  field: string;
  /** Which poison fits here: strings only for string fields, everything for free-form JSON. */
  poison: readonly PoisonName[];
  headers?: Record<string, string>;
}

const ALL = POISON_NAMES;
const STRINGS = STRING_POISON;
const STRINGS_AND_NUMBERS: PoisonName[] = [...STRING_POISON, "huge", "hugeNegative"];
/** A webhook id no backend holds: validation answers before the lookup would. */
const NO_WEBHOOK = "0198aaaa-0000-7000-8000-000000000000";
const EMAIL = '{"from":"a@example.com","to":"b@example.com","subject":"s","text":"t"';

export const FIELD_CASES: FieldCase[] = [
  { method: "POST", path: "/v1/flags", body: '{"key":$}', field: "key", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"nul-desc","description":$}',
    field: "description",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"r1","rules":[{"type":"users","userIds":[$]}]}',
    field: "rules.0.userIds.0",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"r2","rules":[{"type":"attribute","attribute":$,"operator":"equals","value":"x"}]}',
    field: "rules.0.attribute",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"r3","rules":[{"type":"attribute","attribute":"plan","operator":"equals","value":$}]}',
    field: "rules.0.value",
    poison: STRINGS_AND_NUMBERS,
  },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"r4","rules":[{"type":"attribute","attribute":"plan","operator":"in","value":["a",$]}]}',
    field: "rules.0.value.1",
    poison: STRINGS_AND_NUMBERS,
  },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"r5","rules":[{"type":"percentage","percentage":$}]}',
    field: "rules.0.percentage",
    poison: ["huge", "hugeNegative"],
  },
  { method: "PATCH", path: "/v1/flags/{seed}", body: '{"description":$}', field: "description", poison: STRINGS },
  { method: "POST", path: "/v1/flags/{seed}/evaluate", body: '{"userId":$}', field: "userId", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/flags/{seed}/evaluate",
    body: '{"userId":"u1","attributes":{"plan":$}}',
    field: "attributes.plan",
    poison: ALL,
  },
  {
    method: "POST",
    path: "/v1/flags/{seed}/schedules",
    body: '{"at":$,"changes":{"enabled":true}}',
    field: "at",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/flags/{seed}/schedules",
    body: '{"at":"2030-01-01T00:00:00Z","changes":{"rules":[{"type":"users","userIds":[$]}]}}',
    field: "changes.rules.0.userIds.0",
    poison: STRINGS,
  },
  { method: "POST", path: "/v1/events", body: '{"event":$,"userId":"u"}', field: "event", poison: STRINGS },
  { method: "POST", path: "/v1/events", body: '{"event":"e","userId":$}', field: "userId", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/events",
    body: '{"event":"e","userId":"u","timestamp":$}',
    field: "timestamp",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/events",
    body: '{"event":"e","userId":"u","properties":{"p":$}}',
    field: "properties.p",
    poison: ALL,
  },
  {
    method: "POST",
    path: "/v1/events",
    body: '{"event":"e","userId":"u","properties":{"revenue":$}}',
    field: "properties.revenue",
    poison: ["huge", "hugeNegative"],
  },
  {
    method: "POST",
    path: "/v1/events/batch",
    body: '{"events":[{"event":"e","userId":"u"},{"event":"e","userId":"u","properties":{"p":$}}]}',
    field: "events.1.properties.p",
    poison: ALL,
  },
  { method: "POST", path: "/v1/emails", body: `${EMAIL.replace('"s"', "$")}}`, field: "subject", poison: STRINGS },
  { method: "POST", path: "/v1/emails", body: `${EMAIL.replace('"t"', "$")}}`, field: "text", poison: STRINGS },
  { method: "POST", path: "/v1/emails", body: `${EMAIL},"html":$}`, field: "html", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/emails",
    body: `${EMAIL.replace('"a@example.com"', "$")}}`,
    field: "from",
    poison: STRINGS,
  },
  { method: "POST", path: "/v1/emails", body: `${EMAIL},"headers":{"X-A":$}}`, field: "headers.X-A", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/emails",
    body: `${EMAIL},"tags":[{"name":"a","value":$}]}`,
    field: "tags.0.value",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/emails",
    body: `${EMAIL},"attachments":[{"filename":$,"content":"aGk="}]}`,
    field: "attachments.0.filename",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/emails/batch",
    body: `[${EMAIL}},${EMAIL.replace('"s"', "$")}}]`,
    field: "1.subject",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/emails/{email}/events",
    body: '{"type":"delivered","detail":{"d":$}}',
    field: "detail.d",
    poison: ALL,
  },
  {
    method: "POST",
    path: "/v1/webhooks",
    body: '{"endpoint":$,"events":["email.sent"]}',
    field: "endpoint",
    poison: STRINGS,
  },
  {
    method: "POST",
    path: "/v1/webhooks",
    body: '{"endpoint":"https://hooks.example.com/x","events":[$]}',
    field: "events.0",
    poison: STRINGS,
  },
  { method: "PATCH", path: `/v1/webhooks/${NO_WEBHOOK}`, body: '{"endpoint":$}', field: "endpoint", poison: STRINGS },
  { method: "PATCH", path: "/v1/emails/{email}", body: '{"scheduled_at":$}', field: "scheduled_at", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/emails/{email}/events",
    body: '{"type":"bounced","detail":$}',
    field: "detail",
    poison: STRINGS,
  },
  { method: "POST", path: "/v1/suppressions", body: '{"email":$}', field: "email", poison: STRINGS },
  {
    method: "POST",
    path: "/v1/suppressions/batch/add",
    body: '{"emails":["a@example.com",$]}',
    field: "emails.1",
    poison: STRINGS,
  },
  { method: "POST", path: "/v1/suppressions/batch/remove", body: '{"ids":[$]}', field: "ids.0", poison: STRINGS },
];

/** Requests with a prototype name where a key or name goes: refused like any unknown or bad name. */
export const PROTOTYPE_CASES: { method: FieldCase["method"]; path: string; body?: string; field: string }[] = [
  { method: "GET", path: "/v1/events?__proto__=1", field: "__proto__" },
  { method: "GET", path: "/v1/flags?__proto__=1", field: "__proto__" },
  { method: "GET", path: "/v1/events?constructor=1", field: "constructor" },
  { method: "GET", path: "/v1/overview?__proto__=1", field: "__proto__" },
  {
    method: "POST",
    path: "/v1/flags",
    body: '{"key":"p1","rules":[{"type":"attribute","attribute":"__proto__","operator":"equals","value":"x"}]}',
    field: "rules.0.attribute",
  },
  { method: "POST", path: "/v1/flags", body: '{"key":"p2","__proto__":{"enabled":true}}', field: "__proto__" },
  {
    method: "POST",
    path: "/v1/flags/{seed}/evaluate",
    body: '{"userId":"u1","attributes":{"__proto__":"x"}}',
    field: "attributes.__proto__",
  },
  {
    method: "POST",
    path: "/v1/events",
    body: '{"event":"e","userId":"u","properties":{"__proto__":{"x":1}}}',
    field: "properties.__proto__",
  },
  {
    method: "POST",
    path: "/v1/emails",
    body: `${EMAIL},"headers":{"X-A":"1","__proto__":"v"}}`,
    field: "headers.__proto__",
  },
];

/** Path ids that no backend can hold: every one is 404, never a storage error. */
export const IMPOSSIBLE_IDS = ["%00", "a%00b", "%ED%A0%80", "x%F0", "%EF%BF%BF%00"];

export const ID_ROUTES: { method: FieldCase["method"]; path: (id: string) => string; body?: string }[] = [
  { method: "GET", path: (id) => `/v1/flags/${id}` },
  { method: "PATCH", path: (id) => `/v1/flags/${id}`, body: '{"enabled":true}' },
  { method: "DELETE", path: (id) => `/v1/flags/${id}` },
  { method: "POST", path: (id) => `/v1/flags/${id}/evaluate`, body: "{}" },
  { method: "GET", path: (id) => `/v1/flags/${id}/schedules` },
  {
    method: "POST",
    path: (id) => `/v1/flags/${id}/schedules`,
    body: '{"at":"2030-01-01T00:00:00Z","changes":{"enabled":true}}',
  },
  { method: "DELETE", path: (id) => `/v1/flags/{seed}/schedules/${id}` },
  { method: "GET", path: (id) => `/v1/emails/${id}` },
  { method: "GET", path: (id) => `/v1/emails/${id}/events` },
  { method: "POST", path: (id) => `/v1/emails/${id}/events`, body: '{"type":"delivered"}' },
  { method: "GET", path: (id) => `/v1/webhooks/${id}` },
  { method: "PATCH", path: (id) => `/v1/webhooks/${id}`, body: '{"status":"disabled"}' },
  { method: "DELETE", path: (id) => `/v1/webhooks/${id}` },
  { method: "POST", path: (id) => `/v1/webhooks/${id}/signing-secret/rotate` },
  { method: "GET", path: (id) => `/v1/webhooks/${id}/events` },
  { method: "GET", path: (id) => `/v1/webhooks/${NO_WEBHOOK}/events/${id}` },
  { method: "POST", path: (id) => `/v1/webhooks/${id}/events/${id}/replay` },
  { method: "GET", path: (id) => `/v1/webhooks/${NO_WEBHOOK}/events/${id}/attempts` },
  { method: "PATCH", path: (id) => `/v1/emails/${id}`, body: '{"scheduled_at":"2030-01-01T00:00:00Z"}' },
  { method: "POST", path: (id) => `/v1/emails/${id}/cancel` },
  { method: "GET", path: (id) => `/v1/suppressions/${id}` },
  { method: "DELETE", path: (id) => `/v1/suppressions/${id}` },
];

/** Query values that name nothing storable, or cursors decoding to such names. */
export const QUERY_CASES: { path: string; field: string }[] = [
  { path: "/v1/events?userId=%00", field: "userId" },
  { path: "/v1/events?cursor=%00", field: "cursor" },
  { path: "/v1/suppressions?after=%00", field: "after" },
  { path: "/v1/emails?before=%00", field: "before" },
  { path: "/v1/flags?cursor=AA", field: "cursor" }, // base64url of "\0"
  { path: "/v1/flags?cursor=%00", field: "cursor" },
  { path: "/v1/flags/{seed}/schedules?cursor=%00", field: "cursor" },
  { path: "/v1/webhooks?after=%00", field: "after" },
  { path: "/v1/webhooks?limit=0", field: "limit" },
  { path: "/v1/overview?hours=%00", field: "hours" },
];
