import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";

/**
 * A self-signed X.509 certificate made with node:crypto alone (Node can read certificates but
 * not write them, so the DER is assembled here): what a test needs to play Amazon SNS, which
 * signs with the key of the certificate at its SigningCertURL.
 */
export interface TestCertificate {
  pem: string;
  privateKey: KeyObject;
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
/** A non-negative INTEGER in DER's minimal form (a leading zero only before a high bit). */
function integer(value: number): Buffer {
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  if (bytes.length === 0 || bytes[0]! >= 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, "utf8"));
const NULL = Buffer.from([0x05, 0x00]);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const two = (n: number) => String(n).padStart(2, "0");
  const text = `${two(date.getUTCFullYear() % 100)}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(text, "ascii"));
}

/** An RSA-2048 certificate for `commonName`, valid from a day ago to `validDays` from now. */
export function selfSignedCertificate(commonName: string, validDays = 30): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const algorithm = sequence(oid("1.2.840.113549.1.1.11"), NULL); // sha256WithRSAEncryption
  const name = sequence(set(sequence(oid("2.5.4.3"), utf8(commonName))));
  const now = Date.now();
  const validity = sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + validDays * 86_400_000)));
  const spki = publicKey.export({ type: "spki", format: "der" });
  const tbs = sequence(tlv(0xa0, integer(2)), integer(now % 0xffffff), algorithm, name, validity, name, spki);
  const signature = sign("sha256", tbs, privateKey);
  const der = sequence(tbs, algorithm, tlv(0x03, Buffer.from([0x00]), signature));
  const lines = der
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n");
  return { pem: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`, privateKey };
}
