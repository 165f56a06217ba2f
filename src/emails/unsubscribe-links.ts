import { createHmac, timingSafeEqual } from "node:crypto";
import { type ErrorDetail, FlagpostError } from "../errors.js";
import type { ServerSecret } from "../server-secret.js";
import type { EmailRecord } from "../ports/storage/index.js";
import type { MailAddress } from "../ports/transport.js";
import { parseAddress } from "./addresses.js";

/**
 * One-click unsubscribe (RFC 8058, docs/emails.md "One-click unsubscribe"). `unsubscribe: true`
 * links to flagpost's own `<publicUrl>/v1/unsubscribe/<token>`, the token being
 * `<email id>.<mac>`: the mac is 128 bits of HMAC-SHA256 of the id and the recipient's address
 * under a key derived from the server's secret, so a token names one recipient of one email and
 * cannot be made without the secret. The address is not in the token (links end up in logs); it
 * is read back from the stored email, which has exactly one recipient.
 */

/** Bytes of the HMAC kept: 128 bits, 22 base64url characters. */
const MAC_BYTES = 16;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAC = /^[A-Za-z0-9_-]{22}$/;

/** The one recipient of an email sent with `unsubscribe: true`, bare and lower-cased. */
export function soleRecipient(email: EmailRecord): string | undefined {
  const all = [...email.content.to, ...(email.content.cc ?? []), ...(email.content.bcc ?? [])];
  if (all.length !== 1) return undefined;
  return parseAddress(all[0]!)?.address.toLowerCase();
}

/** Where the link goes and what the headers say; `publicUrl` unset means `unsubscribe: true` is refused. */
export class UnsubscribeLinks {
  readonly #secret: ServerSecret;
  readonly #base: string | undefined;

  constructor(secret: ServerSecret, publicUrl: string | undefined) {
    this.#secret = secret;
    this.#base = publicUrl === undefined || publicUrl === "" ? undefined : publicUrl.replace(/\/+$/, "");
    if (this.#base !== undefined && !/^https?:\/\/[^\s<>?#]+$/.test(this.#base))
      throw new FlagpostError(
        "validation_error",
        `publicUrl must be an http(s) URL without query or fragment, such as "https://mail.example.com" (got ${JSON.stringify(publicUrl)})`,
      );
  }

  /** Why a request with this `unsubscribe` cannot be sent here (no public URL for `true`); `prefix` starts the path. */
  problem(unsubscribe: boolean | string | null | undefined, prefix: PropertyKey[]): ErrorDetail | undefined {
    if (unsubscribe !== true || this.#base !== undefined) return undefined;
    return {
      path: [...prefix, "unsubscribe"].map(String).join("."),
      message:
        "true needs flagpost's public URL (FLAGPOST_PUBLIC_URL, or publicUrl for createFlagpost) to link to; give your own https: URL instead, or set it",
    };
  }

  /** Adds List-Unsubscribe (and List-Unsubscribe-Post for an https: link) to the stored email's headers. */
  /** `recipient`: the email's one recipient as send() read it (`unsubscribe: true` requires exactly one). */
  async addHeaders(
    record: EmailRecord,
    unsubscribe: boolean | string | null | undefined,
    recipient: MailAddress | undefined,
  ): Promise<void> {
    if (!unsubscribe) return;
    let url: string;
    if (unsubscribe === true) {
      const mac = await this.#mac(record.id, recipient!.address.toLowerCase());
      url = `${this.#base}/v1/unsubscribe/${record.id}.${mac}`;
    } else url = unsubscribe;
    const headers: Record<string, string> = { ...record.content.headers, "List-Unsubscribe": `<${url}>` };
    // One-click is for https: only (RFC 8058 section 3.1); a mailto: link is the older kind.
    if (url.startsWith("https:") || unsubscribe === true)
      headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
    record.content.headers = headers;
  }

  /** The email id a token names, when its shape is right (the mac is checked by `verify`). */
  static emailIdOf(token: string): string | undefined {
    const [id, mac, ...rest] = token.split(".");
    return rest.length === 0 && id !== undefined && mac !== undefined && ID.test(id) && MAC.test(mac) ? id : undefined;
  }

  /** Whether the token was made for this email and recipient (compared in constant time). */
  async verify(token: string, recipient: string): Promise<boolean> {
    const id = UnsubscribeLinks.emailIdOf(token);
    if (id === undefined) return false;
    const expected = Buffer.from(await this.#mac(id, recipient));
    const given = Buffer.from(token.slice(id.length + 1));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async #mac(id: string, recipient: string): Promise<string> {
    const key = await this.#secret.keyFor("unsubscribe");
    return createHmac("sha256", key)
      .update(`${id}\n${recipient}`)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  }
}
