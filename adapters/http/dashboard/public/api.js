// The /v1 flag and experiment routes, called with the pasted key. The key lives in this tab's sessionStorage and
// goes only into the Authorization header: never into a URL, a cookie or the console.

const STORAGE_KEY = "flagpost.apiKey";
const apiBase = document.querySelector('meta[name="flagpost-api-base"]').content;

/** A refused request: `code` and `details` come from the server's `{error: {...}}` body. */
export class ApiError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** The key itself was refused (missing, unknown or revoked), not the operation. */
  get isAuth() {
    return this.code === "missing_api_key" || this.code === "invalid_api_key";
  }
}

function readStoredKey() {
  try {
    return sessionStorage.getItem(STORAGE_KEY) || "";
  } catch {
    return "";
  }
}

// The key for this page; sessionStorage only carries it across reloads of the same tab.
let currentKey = readStoredKey();

export function storedKey() {
  return currentKey;
}

export function storeKey(key) {
  currentKey = key;
  try {
    sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Storage blocked: the key then lives in this page only, until it is reloaded.
  }
}

export function forgetKey() {
  currentKey = "";
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing was stored
  }
}

/** Same-origin URL for a /v1 path, relative to the page so a mount prefix (/api/dashboard/) works. */
function url(path, query) {
  const u = new URL(`${apiBase}${path}`, document.baseURI);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) u.searchParams.set(name, value);
  return u.href;
}

/** The flag routes' refusal body: `{error: {code, message, details}}`. */
const flagError = (payload) => (payload && typeof payload === "object" ? payload.error : undefined);

/**
 * One call to a /v1 route: the response and its parsed JSON body (undefined when there is none).
 * A refusal becomes an ApiError whose code, message and details `readError(body)` finds.
 */
export async function send(method, path, { body, query, key = currentKey, readError = flagError } = {}) {
  const headers = { accept: "application/json", authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch {
    throw new ApiError(
      0,
      "network_error",
      "The server could not be reached. Check that it is running, then try again.",
    );
  }
  if (response.status === 204) return { payload: undefined, response };
  let payload;
  try {
    payload = await response.json();
  } catch {
    payload = undefined;
  }
  if (!response.ok) {
    const error = readError(payload);
    const code = error?.code ?? `http_${response.status}`;
    let message = error?.message ?? `The server answered ${response.status} ${response.statusText}.`;
    if (response.status === 429) {
      const wait = response.headers.get("retry-after");
      if (wait) message += ` Try again in ${wait} s.`;
    }
    throw new ApiError(response.status, code, message, Array.isArray(error?.details) ? error.details : []);
  }
  return { payload, response };
}

/** A flag route's `data` (undefined on 204) and the response (for its Link header). */
export async function request(method, path, options) {
  const { payload, response } = await send(method, path, options);
  return { data: payload?.data, response };
}

/** The `cursor` of the next page from a `Link: <…>; rel="next"` header, if any. */
export function nextCursor(linkHeader) {
  if (!linkHeader) return undefined;
  for (const part of linkHeader.split(",")) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part);
    if (match) return new URL(match[1], document.baseURI).searchParams.get("cursor") ?? undefined;
  }
  return undefined;
}

const flagPath = (key) => `/flags/${encodeURIComponent(key)}`;

export const api = {
  async listFlags({ cursor, limit = 100, key } = {}) {
    const { data, response } = await request("GET", "/flags", { query: { limit: String(limit), cursor }, key });
    return { flags: data, next: nextCursor(response.headers.get("link")) };
  },
  getFlag: async (key) => (await request("GET", flagPath(key))).data,
  createFlag: async (flag) => (await request("POST", "/flags", { body: flag })).data,
  updateFlag: async (key, changes) => (await request("PATCH", flagPath(key), { body: changes })).data,
  deleteFlag: async (key) => {
    await request("DELETE", flagPath(key));
  },
  evaluate: async (key, context) => (await request("POST", `${flagPath(key)}/evaluate`, { body: context })).data,
  /** The scopes of the current key (GET /v1/flags/_access). */
  access: async () => (await request("GET", "/flags/_access")).data,
  experimentResults: async (id, query) =>
    (await request("GET", `/experiments/${encodeURIComponent(id)}/results`, { query })).data,
};
