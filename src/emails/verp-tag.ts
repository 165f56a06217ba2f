import { createHmac, timingSafeEqual } from "node:crypto";
import type { ServerSecret } from "../server-secret.js";

/**
 * The tag of a VERP return path, `bounces+<id>-<tag>@<bounce domain>`: ten base32 characters
 * (50 bits) of HMAC-SHA256 of the email id under a key derived from the server's secret. A report
 * is trusted to be about an email only when it comes back to the address that email was sent
 * with; an id alone, which every recipient sees in the Message-ID, is not enough
 * (docs/emails.md, "Forged reports").
 */
export const VERP_TAG_LENGTH = 10;
/** RFC 4648 base32, lower-cased: local parts may have their case changed by relays. */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
/** The length of a UUID, the id part of a VERP key. */
const ID_LENGTH = 36;

function base32(bytes: Buffer, length: number): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length === length) break;
  }
  return out;
}

/** Makes and checks VERP tags with the server's secret. */
export class VerpTags {
  readonly #secret: ServerSecret;

  constructor(secret: ServerSecret) {
    this.#secret = secret;
  }

  /** The tag of this email id. */
  async tagOf(id: string): Promise<string> {
    const key = await this.#secret.keyFor("verp");
    return base32(createHmac("sha256", key).update(id.toLowerCase()).digest(), VERP_TAG_LENGTH);
  }

  /** Whether `tag` is this id's tag (compared in constant time). */
  async verify(id: string, tag: string): Promise<boolean> {
    const expected = Buffer.from(await this.tagOf(id));
    const given = Buffer.from(tag.toLowerCase());
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** A VERP key as reports carry it in `emailId` (`<id>` or `<id>-<tag>`), split. */
export function splitVerpKey(key: string): { id: string; tag?: string } {
  const text = key.toLowerCase();
  if (text.length > ID_LENGTH + 1 && text[ID_LENGTH] === "-")
    return { id: text.slice(0, ID_LENGTH), tag: text.slice(ID_LENGTH + 1) };
  return { id: text };
}
