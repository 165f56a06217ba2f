import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth";
import { splitTxt } from "../../../src/domains/dns-records.js";
import { SIGNED_HEADERS } from "../../../src/domains/sending-domains.js";

/** One signing domain for the DKIM tests: its key pair, its published record, and mailauth's verdict. */
export const DOMAIN = "acme.example";
export const SELECTOR = "flagpost1";
export const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;
export const dkim = { domainName: DOMAIN, keySelector: SELECTOR, privateKey, signedHeaders: SIGNED_HEADERS };

/** mailauth's DKIM verdict, with DNS answering only the selector's TXT record. */
export async function verdict(signed: Buffer): Promise<string | undefined> {
  const result = await dkimVerify(signed, {
    resolver: async (name: string, type: string) => {
      if (type === "TXT" && name === `${SELECTOR}._domainkey.${DOMAIN}`) return [splitTxt(record)];
      throw Object.assign(new Error(`no ${type} for ${name}`), { code: "ENOTFOUND" });
    },
  });
  return result.results[0]?.status.result;
}
