import type { ErrorStyle, Route } from "./types.js";

interface CompiledRoute {
  route: Route;
  segments: string[];
}

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  /** The path exists with other methods. */
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "none" };

function splitPath(path: string): string[] | undefined {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const parts = trimmed.split("/").slice(1);
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return undefined; // malformed percent-encoding matches nothing
  }
}

/** Matches remembered per method and path; past this many the memory starts over. */
const CACHE_MAX = 1_000;

/**
 * A linear route table: a dozen routes, matched segment by segment, no regular expressions. The
 * last matches are remembered (a client asks for the same few paths over and over); a match and
 * its params are frozen, since they are shared between requests.
 */
export class Router {
  readonly #routes: CompiledRoute[];
  readonly #cache = new Map<string, RouteMatch>();
  /** The error style of each resource (`/v1/emails` → "resend"), as its routes declare it. */
  readonly #styles = new Map<string, ErrorStyle>();

  constructor(routes: Route[]) {
    this.#routes = routes.map((route) => ({ route, segments: route.path.split("/").slice(1) }));
    for (const { route, segments } of this.#routes) {
      const resource = segments.slice(0, 2).join("/");
      const declared = this.#styles.get(resource);
      if (declared !== undefined && declared !== route.style) {
        throw new Error(
          `${route.method} ${route.path} answers errors as "${route.style}", other ${resource} routes as "${declared}"`,
        );
      }
      this.#styles.set(resource, route.style);
    }
  }

  /**
   * The error body style for any path, matched or not (401, 404, 405 answers): that of the routes
   * of its resource, so a route's `style` is the one place the choice is made. Default "data".
   */
  styleFor(path: string): ErrorStyle {
    return this.#styles.get(path.split("/").slice(1, 3).join("/")) ?? "data";
  }

  match(method: string, path: string): RouteMatch {
    const key = `${method} ${path}`;
    let match = this.#cache.get(key);
    if (match === undefined) {
      match = this.#match(method, path);
      if (match.kind === "found") Object.freeze(match.params);
      else if (match.kind === "method_not_allowed") Object.freeze(match.allow);
      if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
      this.#cache.set(key, Object.freeze(match));
    }
    return match;
  }

  #match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    if (!parts) return { kind: "none" };
    const allow: string[] = [];
    for (const { route, segments } of this.#routes) {
      if (segments.length !== parts.length) continue;
      let params: Record<string, string> | undefined = {};
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(":")) {
          if (part === "") {
            params = undefined;
            break;
          }
          params[seg.slice(1)] = part;
        } else if (seg !== part) {
          params = undefined;
          break;
        }
      }
      if (!params) continue;
      if (route.method === method) return { kind: "found", route, params };
      if (!allow.includes(route.method)) allow.push(route.method);
    }
    return allow.length > 0 ? { kind: "method_not_allowed", allow } : { kind: "none" };
  }
}
