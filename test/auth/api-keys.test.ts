import { describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/index.js";
import { memoryStorage } from "../../src/memory/index.js";
import { digestBytes, digestsEqual, hashKey } from "../../src/auth/key-hash.js";
import { fakeClock } from "../support/fake-clock.js";

describe("ApiKeys.verify", () => {
  it("answers the key's id and scopes, never its hash, for a known key and undefined otherwise", async () => {
    const keys = new ApiKeys(memoryStorage(), fakeClock());
    const made = await keys.create({ name: "web", scopes: ["flags:evaluate", "events:write"] });
    const info = await keys.verify(made.key);
    expect(info).toEqual({
      id: made.id,
      name: "web",
      scopes: ["flags:evaluate", "events:write"],
      createdAt: made.createdAt,
    });
    expect(await keys.verify(`${made.key}x`)).toBeUndefined();
    expect(await keys.verify("")).toBeUndefined();
    expect(await keys.verify("k".repeat(513))).toBeUndefined();
  });

  it("answers one frozen object per key while cached, so callers cannot change what others read", async () => {
    const keys = new ApiKeys(memoryStorage(), fakeClock());
    const made = await keys.create({ scopes: ["flags:read"] });
    const first = (await keys.verify(made.key))!;
    expect(await keys.verify(made.key)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.scopes)).toBe(true);
    expect(() => first.scopes.push("full_access")).toThrow(TypeError);
  });

  it("refuses a key revoked through this instance at once, and one revoked elsewhere after the 1 s cache", async () => {
    const storage = memoryStorage();
    const clock = fakeClock();
    const keys = new ApiKeys(storage, clock);
    const elsewhere = new ApiKeys(storage, clock);
    const a = await keys.create();
    const b = await keys.create();
    expect(await keys.verify(a.key)).toBeDefined();
    expect(await keys.verify(b.key)).toBeDefined();
    await elsewhere.revoke(b.id);
    clock.advance(999);
    expect(await keys.verify(b.key)).toBeDefined();
    clock.advance(1);
    expect(await keys.verify(b.key)).toBeUndefined();
    expect(await keys.verify(a.key)).toBeDefined();
    await keys.revoke(a.id);
    expect(await keys.verify(a.key)).toBeUndefined();
  });
});

describe("key hashes", () => {
  it("are SHA-256 hex digests (as stored by earlier versions), compared with crypto.timingSafeEqual over their whole length", () => {
    const digest = hashKey("fp_example");
    expect(digest).toBe("ac76e6bc6ee7bb43d000fdae3f9a12361b040b09a285b0ae0ff32a5ca81e103c");
    const bytes = digestBytes(digest);
    expect(bytes).toHaveLength(32);
    expect(digestsEqual(bytes, digestBytes(hashKey("fp_example")))).toBe(true);
    expect(digestsEqual(bytes, digestBytes(hashKey("fp_other")))).toBe(false);
    const lastBitFlipped = Buffer.from(bytes);
    lastBitFlipped[31] = lastBitFlipped[31]! ^ 1;
    expect(digestsEqual(bytes, lastBitFlipped)).toBe(false);
    expect(digestsEqual(bytes, bytes.subarray(0, 31))).toBe(false);
  });
});
