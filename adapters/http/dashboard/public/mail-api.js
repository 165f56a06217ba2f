// The /v1 email, suppression and webhook routes (Resend-shaped: the resource itself as the body,
// errors as {statusCode, name, message}), plus the flag snapshot for the experiments index.
// Same rules as api.js: the key goes only into the Authorization header.

import { api, send, storedKey } from "./api.js";

/** Resend's refusal body on these routes; the flag routes' {error: {code, message}} on the snapshot. */
function readError(payload) {
  const resend = payload && typeof payload === "object" && typeof payload.name === "string" ? payload : undefined;
  const flagError = payload && typeof payload === "object" ? payload.error : undefined;
  return { code: resend?.name ?? flagError?.code, message: resend?.message ?? flagError?.message };
}

/** The parsed body of a successful answer; an ApiError (code = Resend's `name`) otherwise. */
export const request = async (method, path, { body, query } = {}) =>
  (await send(method, path, { body, query, readError })).payload;

const enc = encodeURIComponent;
const page = (after, limit) => ({ limit: String(limit), after });

export const mailApi = {
  /** Newest first; `after` is the last id of the previous page. */
  listEmails: ({ after, limit = 50 } = {}) => request("GET", "/emails", { query: page(after, limit) }),
  getEmail: (id) => request("GET", `/emails/${enc(id)}`),
  emailEvents: async (id) => (await request("GET", `/emails/${enc(id)}/events`)).data,

  listSuppressions: ({ after, limit = 50 } = {}) => request("GET", "/suppressions", { query: page(after, limit) }),
  addSuppression: (email) => request("POST", "/suppressions", { body: { email } }),
  removeSuppression: (id) => request("DELETE", `/suppressions/${enc(id)}`),

  listWebhooks: ({ after, limit = 50 } = {}) => request("GET", "/webhooks", { query: page(after, limit) }),
  getWebhook: (id) => request("GET", `/webhooks/${enc(id)}`),
  createWebhook: (webhook) => request("POST", "/webhooks", { body: webhook }),
  deleteWebhook: (id) => request("DELETE", `/webhooks/${enc(id)}`),
  updateWebhook: (id, changes) => request("PATCH", `/webhooks/${enc(id)}`, { body: changes }),
  rotateSecret: (id) => request("POST", `/webhooks/${enc(id)}/signing-secret/rotate`),
  webhookEvent: (id, eventId) => request("GET", `/webhooks/${enc(id)}/events/${enc(eventId)}`),
  webhookEvents: (id, { after, limit = 20 } = {}) =>
    request("GET", `/webhooks/${enc(id)}/events`, { query: page(after, limit) }),
  replay: (id, eventId) => request("POST", `/webhooks/${enc(id)}/events/${enc(eventId)}/replay`),
  attempts: (id, eventId) =>
    request("GET", `/webhooks/${enc(id)}/events/${enc(eventId)}/attempts`, { query: { limit: "100" } }),

  /** Every flag with its variants (GET /v1/flags/_snapshot, flags:read). */
  flagSnapshot: async () => (await request("GET", "/flags/_snapshot")).data,
};

// What the current key may do (GET /v1/flags/_access, asked once per key): a page the key may
// not use says so instead of failing.
let access = { key: undefined, scopes: [] };

export async function keyMay(scope) {
  const key = storedKey();
  if (access.key !== key) access = { key, scopes: (await api.access()).scopes };
  return access.scopes.includes("full_access") || access.scopes.includes(scope);
}
