import type { IncomingHttpHeaders } from "node:http";

/**
 * Node's headers with repeated values joined by ", ". Node already joins all but a few (set-cookie
 * comes as a list): only then is a copy made.
 */
export function joinedHeaders(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  for (const name in headers) {
    if (Array.isArray(headers[name])) {
      const joined: Record<string, string | undefined> = {};
      for (const [key, value] of Object.entries(headers)) joined[key] = Array.isArray(value) ? value.join(", ") : value;
      return joined;
    }
  }
  return headers as Record<string, string | undefined>;
}
