import { FlagpostError } from "../../src/errors.js";
import { InvalidJson, parseJsonInThread, THREAD_JSON_BYTES } from "./json-thread.js";
import type { HttpRequest, RequestBody } from "./types.js";

/**
 * Reading what a request carries before a route sees it: the bearer token, and the body as JSON
 * (only with a JSON media type, only valid UTF-8).
 */

/** JSON or any `+json` media type, with or without parameters. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === "application/json") return true; // what nearly every client sends
  const type = value.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(" ");
  if (space < 0 || header.slice(0, space).toLowerCase() !== "bearer") return undefined;
  const token = header.slice(space + 1).trim();
  return token.length > 0 ? token : undefined;
}

export async function readJson(body: RequestBody, headers: HttpRequest["headers"], limit: number): Promise<unknown> {
  if (body.kind === "none") return undefined;
  // Also for a body a framework already parsed: a form that express.urlencoded() turned into an
  // object is still not JSON.
  if (!isJsonContentType(headers["content-type"])) {
    throw new FlagpostError("unsupported_media_type", 'Send the body as JSON with "Content-Type: application/json"');
  }
  if (body.kind === "parsed") return body.value;
  const bytes = await body.read(limit);
  if (bytes.length === 0) return undefined;
  if (bytes.length > THREAD_JSON_BYTES) {
    try {
      return await parseJsonInThread(bytes);
    } catch (error) {
      if (error instanceof InvalidJson) throw invalidJson();
      throw new FlagpostError("unavailable", "The request body could not be parsed; retry the request");
    }
  }
  try {
    // JSON travels as UTF-8 (RFC 8259): broken byte sequences are refused, not replaced by U+FFFD.
    return JSON.parse(UTF8.decode(bytes));
  } catch {
    throw invalidJson();
  }
}

function invalidJson(): FlagpostError {
  return new FlagpostError("invalid_json", "The request body is not valid JSON (UTF-8)");
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });
