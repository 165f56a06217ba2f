import { FlagpostError } from "../../src/errors.js";

/** Query parameters as an object for a zod schema; a parameter given twice is refused, not guessed. */
export function queryObject(query: URLSearchParams): Record<string, string> {
  // No prototype: "__proto__" becomes an own key like any other, so the schema refuses it as unknown.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of query) {
    if (Object.hasOwn(out, name)) {
      throw new FlagpostError("validation_error", `"${name}" is given more than once`, {
        details: [{ path: name, message: "is given more than once" }],
      });
    }
    out[name] = value;
  }
  return out;
}

/** For a route that takes no query parameters: any one given is refused by name, not ignored. */
export function refuseQuery(query: URLSearchParams): void {
  for (const name of query.keys()) {
    throw new FlagpostError("validation_error", `"${name}" is not a parameter of this route`, {
      details: [{ path: name, message: "is not a parameter of this route" }],
    });
  }
}

/** RFC 8288 Link header for the next page. */
export function nextLink(href: string): string {
  return `<${href}>; rel="next"`;
}
