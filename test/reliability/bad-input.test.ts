import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, namesField, resolvePath, SEED_FLAG, send } from "./support/answers.js";
import { FIELD_CASES, ID_ROUTES, IMPOSSIBLE_IDS, PROTOTYPE_CASES, QUERY_CASES } from "./support/bad-input-cases.js";
import { type BackendApp, startEveryBackend } from "./support/every-backend.js";
import { fill, nestedJson, POISON } from "./support/poison.js";
import { storedState } from "./support/stored-state.js";

/**
 * Issue 11, defects 1–5: NUL, unpaired surrogates, deep nesting, numbers JSON cannot hold and
 * prototype names, in every field of every route, on memory, SQLite, PostgreSQL and MySQL at once.
 * Each backend must give the same answer, name the field, and store nothing.
 */
describe("bad input answered alike on every backend", () => {
  let backends: BackendApp[];
  let close: () => Promise<void>;
  const emailIds = new Map<string, string>();

  beforeAll(async () => {
    ({ apps: backends, close } = await startEveryBackend());
    for (const b of backends) {
      await b.app.fp.flags.create({
        key: SEED_FLAG,
        enabled: true,
        rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }],
      });
      const sent = await b.app.fp.emails.send({
        from: "a@example.com",
        to: "b@example.com",
        subject: "seed",
        text: "seed",
      });
      emailIds.set(b.backend, sent.id);
    }
  });
  afterAll(() => close());
  // Each case is one request on each of four backends: generous limits for a loaded machine.

  /** The same request on every backend; their answers, by backend. */
  async function everywhere(
    method: string,
    path: string,
    body?: string,
  ): Promise<Map<string, Answer & { text: string }>> {
    const answers = await Promise.all(
      backends.map((b) => send(b, method, resolvePath(path, emailIds.get(b.backend)!), body)),
    );
    return new Map(backends.map((b, i) => [b.backend, answers[i]!]));
  }

  function expectAlike(answers: Map<string, Answer & { text: string }>, what: string): Answer {
    const [first, ...rest] = [...answers.values()].map(({ text: _text, ...answer }) => answer);
    for (const [i, answer] of rest.entries())
      expect(answer, `${what}: ${backends[i + 1]!.backend} vs memory`).toEqual(first);
    return first!;
  }

  it("refuses each poison value in each field with 422 naming the field, and stores nothing", async () => {
    const before = await Promise.all(backends.map((b) => storedState(b)));
    let checked = 0;
    for (const c of FIELD_CASES) {
      for (const poison of c.poison) {
        const what = `${c.method} ${c.path} ${c.field} = ${poison}`;
        const answer = expectAlike(await everywhere(c.method, c.path, fill(c.body, POISON[poison])), what);
        expect(answer.status, `${what}: ${answer.message}`).toBe(422);
        expect(answer.code, what).toBe("validation_error");
        expect(namesField(answer, c.field), `${what} named ${answer.field}`).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(97);
    expect(await Promise.all(backends.map((b) => storedState(b)))).toEqual(before);
  }, 180_000);

  it("answers 6,000 levels of nesting (issue 11's reproduction) with 422, not a stack overflow", async () => {
    const answer = expectAlike(
      await everywhere("POST", "/v1/emails/{email}/events", `{"type":"delivered","detail":${nestedJson(6_000)}}`),
      "deep detail",
    );
    expect(answer).toMatchObject({ status: 422, field: "detail.a" });
    expect(answer.message).toContain("nested more than 64 levels deep");
  });

  it("refuses prototype names in query parameters, keys and attribute rules", async () => {
    for (const c of PROTOTYPE_CASES) {
      const what = `${c.method} ${c.path} ${c.body ?? ""}`;
      const answer = expectAlike(await everywhere(c.method, c.path, c.body), what);
      expect(answer.status, `${what}: ${answer.message}`).toBe(422);
      expect(namesField(answer, c.field), `${what} named ${answer.field}`).toBe(true);
    }
  });

  it("answers 404 for path ids that no backend could hold, on every route with an id", async () => {
    for (const route of ID_ROUTES) {
      for (const id of IMPOSSIBLE_IDS) {
        const what = `${route.method} ${route.path(id)}`;
        const answer = expectAlike(await everywhere(route.method, route.path(id), route.body), what);
        expect({ status: answer.status, code: answer.code }, what).toEqual({ status: 404, code: "not_found" });
      }
    }
  });

  it("refuses query values and cursors that name nothing storable", async () => {
    for (const c of QUERY_CASES) {
      const answer = expectAlike(await everywhere("GET", c.path), c.path);
      expect(answer.status, `${c.path}: ${answer.message}`).toBe(422);
      expect(answer.field, c.path).toBe(c.field);
    }
  });

  it("stores what the rules allow exactly as sent, alike on every backend", async () => {
    const description = 'tab\t, bell\u0007, U+FFFF \uffff, astral 😀, quote ", backslash \\';
    const created = expectAlike(
      await everywhere("POST", "/v1/flags", JSON.stringify({ key: "allowed-text", description })),
      "allowed text",
    );
    expect(created.status).toBe(201);
    for (const b of backends) expect((await b.app.fp.flags.get("allowed-text")).description).toBe(description);

    // 64 levels in all: the body, then "properties" and 62 more.
    const properties = `{"constructor":"c","toString":1,"deep":${nestedJson(62)},"tiny":5e-324}`;
    const accepted = expectAlike(
      await everywhere("POST", "/v1/events", `{"event":"allowed","userId":"u-allowed","properties":${properties}}`),
      "64 levels",
    );
    expect(accepted.status).toBe(202);
    const one = expectAlike(
      await everywhere(
        "POST",
        "/v1/events",
        `{"event":"allowed","userId":"u-deeper","properties":{"deep":${nestedJson(63)}}}`,
      ),
      "65 levels",
    );
    expect(one.status).toBe(422);
    for (const b of backends) {
      const page = await b.app.fp.events.query({ userId: "u-allowed" });
      expect(
        page.data.map((e) => e.properties),
        b.backend,
      ).toEqual([JSON.parse(properties)]);
    }
  });
});
