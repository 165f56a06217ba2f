import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { expect, it } from "vitest";
import { generateDkimKey } from "../../src/domains/dkim-key.js";
import { openPrivateKey, sealPrivateKey } from "../../src/domains/key-sealing.js";

const key = createHash("sha256").update("a secret").digest();

it("seals a DKIM key with AES-256-GCM and opens it only with the same key, unaltered", async () => {
  const dkim = await generateDkimKey();
  const sealed = sealPrivateKey(dkim.privateKeyPem, key);
  expect(sealed).toMatch(/^aes256gcm:/);
  expect(sealed).not.toContain("PRIVATE KEY");
  const opened = openPrivateKey(sealed, key);
  expect(opened).toBe(dkim.privateKeyPem);
  // The opened key is the pair of the published one, 2048 bits.
  const pub = createPublicKey(createPrivateKey(opened)).export({ type: "spki", format: "der" });
  expect(pub.toString("base64")).toBe(dkim.publicKeyBase64);
  expect(createPrivateKey(opened).asymmetricKeyDetails?.modulusLength).toBe(2048);

  const other = createHash("sha256").update("another secret").digest();
  expect(() => openPrivateKey(sealed, other)).toThrow();
  const body = sealed.split(".");
  body[2] = (body[2]![0] === "A" ? "B" : "A") + body[2]!.slice(1);
  expect(() => openPrivateKey(body.join("."), key)).toThrow();
  expect(() => openPrivateKey(sealed, undefined)).toThrow(/FLAGPOST_SECRET_KEY/);
});

it("keeps the PEM as it is without a key", () => {
  expect(sealPrivateKey("-----BEGIN PRIVATE KEY-----", undefined)).toBe("-----BEGIN PRIVATE KEY-----");
  expect(openPrivateKey("-----BEGIN PRIVATE KEY-----", undefined)).toBe("-----BEGIN PRIVATE KEY-----");
});
