import type { BackendApp } from "./every-backend.js";

/** What a reply says, without what legitimately differs between backends (ids, timestamps). */
export interface Answer {
  status: number;
  /** `error.code` (flag and event routes) or `name` (email routes, Resend's shape). */
  code: string | undefined;
  /** The field the error names: the first detail's path, or the quoted field of a Resend message. */
  field: string | undefined;
  message: string | undefined;
}

export const SEED_FLAG = "seed";

/** Replaces `{seed}` and `{email}` with what exists on this backend. */
export function resolvePath(path: string, emailId: string): string {
  return path.replace("{seed}", SEED_FLAG).replace("{email}", emailId);
}

/** Sends a raw JSON text (or nothing) with the backend's full-access key. */
export async function send(
  b: BackendApp,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer & { text: string }> {
  const response = await fetch(b.app.url + path, {
    method,
    headers: {
      authorization: `Bearer ${b.app.key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { ...answerOf(response.status, text), text };
}

export function answerOf(status: number, text: string): Answer {
  let body: any;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    return { status, code: "(not JSON)", field: undefined, message: text.slice(0, 200) };
  }
  if (body?.error) {
    const message: string = body.error.message;
    return { status, code: body.error.code, field: body.error.details?.[0]?.path, message };
  }
  if (typeof body?.name === "string" && typeof body?.statusCode === "number") {
    const message: string = body.message;
    return { status, code: body.name, field: /^"([^"]*)"/.exec(message)?.[1], message };
  }
  return { status, code: undefined, field: undefined, message: undefined };
}

/** Whether the refusal names `field` (or a part of it: depth errors name the outer fields). */
export function namesField(answer: Answer, field: string): boolean {
  const named = answer.field;
  if (named === undefined) return false;
  return named === field || named.startsWith(`${field}.`) || field.startsWith(`${named}.`);
}
