import { expect, it } from "vitest";
import { emailIdFromVerp } from "../../src/emails/report-fields.js";
import { splitVerpKey, VerpTags } from "../../src/emails/verp-tag.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { ServerSecret } from "../../src/server-secret.js";
import { describeEachStorage } from "../support/storage-backends.js";

const ID = "0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a80";

describeEachStorage("VERP tags", (storage: () => Storage) => {
  it("are made with a secret generated once and kept in storage: every process sharing it makes the same tag", async () => {
    const one = new VerpTags(new ServerSecret(storage()));
    const other = new VerpTags(new ServerSecret(storage()));
    const [a, b] = await Promise.all([one.tagOf(ID), other.tagOf(ID)]);
    expect(a).toMatch(/^[a-z2-7]{10}$/);
    expect(b).toBe(a);
    expect(await one.tagOf("0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a81")).not.toBe(a);
    expect(await other.verify(ID, a.toUpperCase())).toBe(true);
    expect(await other.verify(ID, "aaaaaaaaaa")).toBe(false);
    expect(await other.verify(ID, a.slice(0, 9))).toBe(false);
  });

  it("follow FLAGPOST_SECRET_KEY when it is set, whatever storage holds", async () => {
    const generated = await new VerpTags(new ServerSecret(storage())).tagOf(ID);
    const configured = new VerpTags(new ServerSecret(storage(), "an operator's secret, 32+ chars"));
    const again = new VerpTags(new ServerSecret(storage(), "an operator's secret, 32+ chars"));
    expect(await configured.tagOf(ID)).not.toBe(generated);
    expect(await again.tagOf(ID)).toBe(await configured.tagOf(ID));
  });
});

it("a VERP address's key keeps its tag, and is split back into id and tag", () => {
  expect(emailIdFromVerp(`<BOUNCES+${ID.toUpperCase()}-ABCDEFGHIJ@Bounce.Acme.Example>`)).toBe(`${ID}-abcdefghij`);
  expect(emailIdFromVerp(`bounces+${ID}@bounce.acme.example`)).toBe(ID);
  // A tag of another length is still read, so that it is refused rather than ignored.
  expect(emailIdFromVerp(`bounces+${ID}-x@bounce.acme.example`)).toBe(`${ID}-x`);
  expect(emailIdFromVerp(`bounces+${ID}-a.b@bounce.acme.example`)).toBeUndefined();
  expect(splitVerpKey(`${ID}-abcdefghij`)).toEqual({ id: ID, tag: "abcdefghij" });
  expect(splitVerpKey(ID.toUpperCase())).toEqual({ id: ID });
});
