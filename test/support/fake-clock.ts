import type { Clock } from "../../src/ports/clock.js";

/** A clock that moves only when told to: retries and leases are tested without waiting. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(start = Date.parse("2026-06-01T10:00:00.000Z")): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(ms) {
      now = ms;
    },
  };
}
