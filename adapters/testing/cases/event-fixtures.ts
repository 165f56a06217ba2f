import { expect } from "vitest";
import type { EventRecord, NewEvent } from "../../../src/ports/storage/events.js";
import { FlagpostError } from "../../../src/errors.js";
import type { Storage } from "../../../src/ports/storage/index.js";

export const T0 = Date.UTC(2026, 2, 4, 5, 6, 7, 89);
export const iso = (ms: number) => new Date(ms).toISOString();
/** A UUID-shaped id whose order follows n, so tests can choose how ties break. */
export const idOf = (n: number) => `01900000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;

export function event(n: number, overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    id: idOf(n),
    event: "page_view",
    userId: "u1",
    timestamp: T0 + n * 1000,
    receivedAt: T0 + n * 1000 + 5,
    propertiesJson: JSON.stringify({ n }),
    ...overrides,
  };
}

/** What queryEvents returns for an appended event. */
export function record(e: NewEvent): EventRecord {
  return {
    id: e.id,
    event: e.event,
    userId: e.userId,
    timestamp: e.timestamp,
    receivedAt: e.receivedAt,
    properties: JSON.parse(e.propertiesJson) as Record<string, unknown>,
  };
}

export async function all(
  storage: Storage,
  filter: Parameters<Storage["events"]["queryEvents"]>[0] = {},
): Promise<EventRecord[]> {
  return storage.events.queryEvents(filter, undefined, 100_000);
}

export async function ids(
  storage: Storage,
  filter: Parameters<Storage["events"]["queryEvents"]>[0] = {},
): Promise<string[]> {
  return (await all(storage, filter)).map((e) => e.id);
}

export async function failure(promise: Promise<unknown>): Promise<FlagpostError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FlagpostError);
  return error as FlagpostError;
}

/** Deterministic pseudo-random numbers, so a failing walk can be replayed. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
