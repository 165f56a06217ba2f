import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, namesField, resolvePath, SEED_FLAG, send } from "./support/answers.js";
import { FIELD_CASES, ID_ROUTES } from "./support/bad-input-cases.js";
import { type BackendApp, startEveryBackend } from "./support/every-backend.js";
import { fill } from "./support/poison.js";
import {
  type Fragment,
  freeFormFragment,
  impossibleSegment,
  prototypeQuery,
  stringFragment,
} from "./support/poison-arbitraries.js";
import { storedState } from "./support/stored-state.js";

/** Runs per property; each run is one request on each of the four backends. */
const NUM_RUNS = Number(process.env.FLAGPOST_BAD_INPUT_RUNS ?? 100);

/**
 * Issue 11, "Bad input": random poison (and random clean values of the same shapes) in every
 * field of every route, on memory, SQLite, PostgreSQL and MySQL at once. Every backend answers
 * the same, nothing answers 5xx, poison is always 422 naming its field (404 in a path), and in
 * the end every backend holds the same data: no partial write anywhere.
 */
describe("bad input, property-based, on every backend", () => {
  let backends: BackendApp[];
  let close: () => Promise<void>;
  const emailIds = new Map<string, string>();

  beforeAll(async () => {
    ({ apps: backends, close } = await startEveryBackend());
    for (const b of backends) {
      await b.app.fp.flags.create({ key: SEED_FLAG, enabled: true });
      emailIds.set(
        b.backend,
        (await b.app.fp.emails.send({ from: "a@example.com", to: "b@example.com", subject: "seed", text: "seed" })).id,
      );
    }
  });
  afterAll(() => close());

  async function everywhere(method: string, path: string, body?: string): Promise<Answer[]> {
    const answers = await Promise.all(
      backends.map((b) => send(b, method, resolvePath(path, emailIds.get(b.backend)!), body)),
    );
    return answers.map(({ text: _text, ...answer }) => answer);
  }

  function expectAlike(answers: Answer[], what: string): Answer {
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, `${what} on ${backends[i]!.backend}: ${answer.message}`).toBeLessThan(500);
      expect(answer, `${what}: ${backends[i]!.backend} vs memory`).toEqual(answers[0]);
    }
    return answers[0]!;
  }

  const fieldRequest = fc.constantFrom(...FIELD_CASES).chain((c) => {
    const stringsOnly = c.poison.every((p) => p === "nul" || p === "highSurrogate" || p === "lowSurrogate");
    return fc.record({ c: fc.constant(c), fragment: stringsOnly ? stringFragment : freeFormFragment });
  });

  it("answers poison in any field with 422 naming it, and clean values alike, on every backend", async () => {
    let poisoned = 0;
    await fc.assert(
      fc.asyncProperty(
        fieldRequest,
        async ({ c, fragment }: { c: (typeof FIELD_CASES)[number]; fragment: Fragment }) => {
          const what = `${c.method} ${c.path} ${fill(c.body, fragment.json).slice(0, 200)}`;
          const answer = expectAlike(await everywhere(c.method, c.path, fill(c.body, fragment.json)), what);
          if (fragment.poison) {
            poisoned += 1;
            expect(answer.status, `${what}: ${answer.message}`).toBe(422);
            expect(namesField(answer, c.field), `${what} named ${answer.field}`).toBe(true);
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
    expect(poisoned).toBeGreaterThan(NUM_RUNS / 4);
  }, 180_000);

  it("answers 404 for any path id holding NUL or a broken code point, on every route with an id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ID_ROUTES), impossibleSegment, async (route, segment) => {
        const answer = expectAlike(
          await everywhere(route.method, route.path(segment), route.body),
          `${route.method} ${route.path(segment)}`,
        );
        expect({ status: answer.status, code: answer.code }).toEqual({ status: 404, code: "not_found" });
      }),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    );
  }, 120_000);

  it("refuses prototype names as query parameters like any unknown parameter", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/v1/events", "/v1/flags"), prototypeQuery, async (path, query) => {
        const answer = expectAlike(await everywhere("GET", `${path}?${query}`), `${path}?${query}`);
        expect(answer.status).toBe(422);
        expect(answer.field).toBe(decodeURIComponent(query.split("=")[0]!));
      }),
      { numRuns: Math.ceil(NUM_RUNS / 5) },
    );
  }, 120_000);

  it("leaves every backend holding the same data afterwards", async () => {
    const states = await Promise.all(backends.map((b) => storedState(b)));
    for (const [i, state] of states.entries()) expect(state, backends[i]!.backend).toEqual(states[0]);
  });
});
