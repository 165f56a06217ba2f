import type { TestApp } from "../support/servers.js";

export interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

export interface Accepted {
  id: string;
  status: "accepted";
}

/** Every stored event, read straight from storage (not through the routes under test). */
export async function storedCount(app: TestApp): Promise<number> {
  return (await app.fp.storage.events.queryEvents({}, undefined, 1_000_000)).length;
}

export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** A valid event with a recent timestamp. */
export function validEvent(n = 0): Record<string, unknown> {
  return {
    event: "signup",
    userId: `user-${n}`,
    timestamp: new Date(Date.now() - 60_000).toISOString(),
    properties: { plan: "pro", n },
  };
}
