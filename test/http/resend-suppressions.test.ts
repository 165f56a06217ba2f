import { Resend } from "resend";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Storage } from "../../src/ports/storage/index.js";
import { startApp, type TestApp } from "../support/servers.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The resend SDK's `suppressions` resource (add, list, get, remove, batch.add, batch.remove)
 * against the real HTTP server, on every storage: the SDK's types are the contract.
 */
describeEachStorage("the resend SDK's suppressions against flagpost", (storage: () => Storage) => {
  let app: TestApp;
  let resend: Resend;

  beforeEach(async () => {
    app = await startApp({ storage: storage() });
    resend = new Resend(app.key, { baseUrl: `${app.url}/v1` });
  });
  afterEach(async () => {
    await app.close();
  });

  it("adds, gets by id or address (any case), lists and removes", async () => {
    const added = await resend.suppressions.add({ email: "Ann <Ann@Example.org>" });
    expect(added.error).toBeNull();
    expect(added.data).toMatchObject({ object: "suppression", id: expect.any(String), email: "ann@example.org" });
    const id = added.data!.id;
    const again = await resend.suppressions.add({ email: "ann@example.org" });
    expect(again.data?.id).toBe(id);

    const byId = await resend.suppressions.get(id);
    expect(byId.data).toEqual({
      object: "suppression",
      id,
      email: "ann@example.org",
      origin: "manual",
      source_id: null,
      created_at: expect.any(String),
    });
    expect((await resend.suppressions.get("ANN@example.org")).data?.id).toBe(id);

    const list = await resend.suppressions.list();
    expect(list.data).toEqual({ object: "list", has_more: false, data: [{ ...byId.data, object: undefined }] });
    expect(list.data!.data[0]).not.toHaveProperty("object");

    const removed = await resend.suppressions.remove("ann@EXAMPLE.org");
    expect(removed.data).toEqual({ object: "suppression", id, deleted: true });
    const gone = await resend.suppressions.get(id);
    expect(gone.data).toBeNull();
    expect(gone.error).toMatchObject({ statusCode: 404, name: "not_found" });
    expect((await resend.suppressions.remove(id)).error).toMatchObject({ statusCode: 404, name: "not_found" });
  });

  it("pages newest first with limit, after and before, and filters by origin", async () => {
    const { data } = await resend.suppressions.batch.add({
      emails: ["a@example.org", "b@example.org", "c@example.org", "d@example.org", "e@example.org"],
    });
    expect(data!.data.map((s) => s.object)).toEqual(Array(5).fill("suppression"));
    const ids = data!.data.map((s) => s.id);
    const emails = (page: { data: { email: string }[] } | null) => page!.data.map((s) => s.email[0]).join("");

    const first = await resend.suppressions.list({ limit: 2 });
    expect([emails(first.data), first.data!.has_more]).toEqual(["ed", true]);
    const next = await resend.suppressions.list({ limit: 2, after: ids[3]! });
    expect([emails(next.data), next.data!.has_more]).toEqual(["cb", true]);
    const last = await resend.suppressions.list({ limit: 2, after: ids[1]! });
    expect([emails(last.data), last.data!.has_more]).toEqual(["a", false]);
    const back = await resend.suppressions.list({ limit: 2, before: ids[1]! });
    expect([emails(back.data), back.data!.has_more]).toEqual(["dc", true]);

    expect(emails((await resend.suppressions.list({ origin: "manual" })).data)).toBe("edcba");
    expect((await resend.suppressions.list({ origin: "bounce" })).data).toEqual({
      object: "list",
      has_more: false,
      data: [],
    });
    const wrong = await resend.suppressions.list({ limit: 101 });
    expect(wrong.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: '"limit" must be an integer from 1 to 100',
    });
  });

  it("removes in batches by address or by id, answering each in request order", async () => {
    const { data } = await resend.suppressions.batch.add({
      emails: ["a@example.org", "b@example.org", "c@example.org"],
    });
    const [a, b] = data!.data.map((s) => s.id);
    const byEmail = await resend.suppressions.batch.remove({ emails: ["A@example.org", "x@example.org"] });
    expect(byEmail.data).toEqual({
      data: [
        { object: "suppression", id: a, deleted: true },
        { object: "suppression", id: "x@example.org", deleted: false },
      ],
    });
    const byId = await resend.suppressions.batch.remove({ ids: [b!] });
    expect(byId.data).toEqual({ data: [{ object: "suppression", id: b, deleted: true }] });
    expect(emailsLeft(await resend.suppressions.list())).toEqual(["c@example.org"]);
    const empty = await resend.suppressions.batch.remove({ emails: [] });
    expect(empty.error).toMatchObject({ statusCode: 422, name: "validation_error" });
  });

  it("refuses what is not an address, naming the field", async () => {
    const bad = await resend.suppressions.add({ email: "not an address" });
    expect(bad.error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message: expect.stringMatching(/^"email" /),
    });
    const batch = await resend.suppressions.batch.add({ emails: ["ok@example.org", "nope"] });
    expect(batch.error).toMatchObject({ statusCode: 422, message: expect.stringMatching(/^"emails\.1" /) });
    expect(emailsLeft(await resend.suppressions.list())).toEqual([]);
  });

  it("keeps sends away from an address added through the API", async () => {
    await resend.suppressions.add({ email: "blocked@example.org" });
    expect(await app.fp.storage.suppressions.suppressedAmong(["blocked@example.org"])).toEqual(["blocked@example.org"]);
  });
});

function emailsLeft(list: { data: { data: { email: string }[] } | null }): string[] {
  return list.data!.data.map((s) => s.email);
}
