import { describe, expect, it } from "vitest";
import { generateDkimKey } from "../../src/domains/dkim-key.js";
import { sealPrivateKey } from "../../src/domains/key-sealing.js";
import { DOMAIN_LOOKUP_TTL_MS, SendingDomains } from "../../src/domains/sending-domains.js";
import { changeDomain } from "../../src/domains/index.js";
import { mailAddress } from "../../src/emails/addresses.js";
import type { Storage } from "../../src/ports/storage/index.js";
import type { SendingDomainRecord } from "../../src/ports/storage/index.js";
import { fakeClock } from "../support/fake-clock.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * The signing-key lookup on every storage, with a fake clock: a change made by another process
 * (here: straight in storage, which this process's cache is not told about) is seen once the
 * lookup's 5 s have passed; a sealed key is opened with the sealing key, and a wrong one refuses.
 */
let serial = 0;
const SEALING_KEY = Buffer.alloc(32, 7);

/** A domain stored with a fresh key sealed under SEALING_KEY; `pem` the key before sealing. */
async function storedDomain(
  storage: Storage,
  status: SendingDomainRecord["status"],
): Promise<SendingDomainRecord & { pem: string }> {
  const key = await generateDkimKey();
  const name = `k${Date.now().toString(36)}${(serial++).toString(36)}.example.com`;
  const at = Date.now();
  const domain: SendingDomainRecord = {
    id: crypto.randomUUID(),
    name,
    region: "us-east-1",
    status,
    selector: "flagpost1",
    privateKey: sealPrivateKey(key.privateKeyPem, SEALING_KEY),
    returnPath: "mail",
    records: [],
    openTracking: false,
    clickTracking: false,
    tls: "opportunistic",
    createdAt: at,
    updatedAt: at,
  };
  await storage.domains.insertDomain(domain);
  return { ...domain, pem: key.privateKeyPem };
}

describeEachStorage("the signing-key lookup", (storage: () => Storage, backend) => {
  describe(backend, () => {
    it("answers a verified domain's unsealed key and return-path host; none for other statuses", async () => {
      const clock = fakeClock();
      const domains = new SendingDomains({ storage: storage(), clock, sealingKey: async () => SEALING_KEY });
      const verified = await storedDomain(storage(), "verified");
      const signer = await domains.signerFor(mailAddress(`Acme <News@${verified.name.toUpperCase()}>`));
      expect(signer).toMatchObject({
        returnPathHost: `mail.${verified.name}`,
        dkim: { domainName: verified.name, keySelector: "flagpost1" },
      });
      expect(signer!.dkim.privateKey.export({ type: "pkcs8", format: "pem" })).toBe(verified.pem);
      for (const status of ["pending", "failed", "not_started"] as const) {
        const other = await storedDomain(storage(), status);
        expect(await domains.signerFor(mailAddress(`news@${other.name}`))).toBeUndefined();
      }
      const wrongKey = new SendingDomains({ storage: storage(), clock, sealingKey: async () => Buffer.alloc(32, 8) });
      await expect(wrongKey.signerFor(mailAddress(`news@${verified.name}`))).rejects.toThrow();
    });

    it("sees another process's removal or failure within the lookup's TTL, this process's at once", async () => {
      const clock = fakeClock();
      const domains = new SendingDomains({ storage: storage(), clock, sealingKey: async () => SEALING_KEY });
      const removed = await storedDomain(storage(), "verified");
      const failed = await storedDomain(storage(), "verified");
      expect(await domains.signerFor(mailAddress(`news@${removed.name}`))).toBeDefined();
      expect(await domains.signerFor(mailAddress(`news@${failed.name}`))).toBeDefined();
      await storage().domains.deleteDomain(removed.id);
      await changeDomain(storage(), failed.id, (d) => ({
        ...d,
        status: "failed",
        updatedAt: Date.now(),
      }));
      clock.advance(DOMAIN_LOOKUP_TTL_MS - 1);
      expect(await domains.signerFor(mailAddress(`news@${removed.name}`))).toBeDefined();
      clock.advance(1);
      expect(await domains.signerFor(mailAddress(`news@${removed.name}`))).toBeUndefined();
      expect(await domains.signerFor(mailAddress(`news@${failed.name}`))).toBeUndefined();

      const local = await storedDomain(storage(), "verified");
      expect(await domains.verifiedDomainOf(mailAddress(`news@${local.name}`))).toBeDefined();
      await storage().domains.deleteDomain(local.id);
      domains.forget();
      expect(await domains.verifiedDomainOf(mailAddress(`news@${local.name}`))).toBeUndefined();
    });
  });
});
