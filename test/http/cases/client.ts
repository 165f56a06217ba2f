import { expect } from "vitest";
import { ERROR_CODES } from "../../../src/errors.js";
import { STATUS_BY_CODE } from "../../../adapters/http/index.js";
import type { Target } from "../../support/frameworks.js";

export interface CallOptions {
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is; with `Content-Type: application/json` unless `headers` say otherwise. */
  raw?: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
  /** The key to send; `null` sends no Authorization header. Default: the target's full_access key. */
  key?: string | null;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body; undefined when the body is empty. Fails the test when the body is not JSON. */
  body: any;
}

/** A real HTTP request to the target (fetch over TCP), its whole body read. */
export async function call(t: Target, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? t.key : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | Uint8Array | ReadableStream<Uint8Array> | undefined;
  if (options.json !== undefined) body = JSON.stringify(options.json);
  if (options.raw !== undefined) body = options.raw;
  if (body !== undefined && typeof body === "string") headers["content-type"] = "application/json";
  if (body instanceof ReadableStream) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers);
  const init: RequestInit & { duplex?: "half" } = { method, headers, body };
  if (body instanceof ReadableStream) init.duplex = "half";
  return readReply(await fetch(t.url + path, init), `${method} ${path}`);
}

/** A response as a Reply, its whole body read; fails the test when a non-empty body is not JSON. */
export async function readReply(response: Response, what: string): Promise<Reply> {
  const text = await response.text();
  let parsed: unknown;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${what} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** `{error: {code, message, details?}}` and nothing else, with the status the code maps to. */
export function expectError(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, code: reply.body?.error?.code }, reply.text).toEqual({ status, code });
  expectErrorShape(reply);
}

/** The flag and event routes' error body, whatever the code. */
export function expectErrorShape(reply: Reply): void {
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  const body = reply.body as { error?: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  const { code, message, details, ...rest } = body.error ?? {};
  expect(rest).toEqual({});
  expect(Object.keys(ERROR_CODES)).toContain(code);
  expect(STATUS_BY_CODE[code as keyof typeof ERROR_CODES]).toBe(reply.status);
  expect(typeof message).toBe("string");
  expect((message as string).length).toBeGreaterThan(0);
  if (details !== undefined) {
    expect(Array.isArray(details)).toBe(true);
    for (const d of details as unknown[]) {
      expect(Object.keys(d as object).sort()).toEqual(["message", "path"]);
      expect(typeof (d as { path: unknown }).path).toBe("string");
      expect(typeof (d as { message: unknown }).message).toBe("string");
    }
  }
}

/** Resend's `{statusCode, name, message}` and nothing else. */
export function expectResendError(reply: Reply, status: number, name: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(reply.body).sort()).toEqual(["message", "name", "statusCode"]);
  expect(reply.body).toMatchObject({ statusCode: status, name });
  expect(typeof reply.body.message).toBe("string");
}

/** The `details[].path` values of a validation error. */
export function detailPaths(reply: Reply): string[] {
  return ((reply.body?.error?.details ?? []) as { path: string }[]).map((d) => d.path);
}

export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
