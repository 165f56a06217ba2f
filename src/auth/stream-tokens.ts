import { createHmac, timingSafeEqual } from "node:crypto";
import type { ServerSecret } from "../server-secret.js";

/**
 * The credential of an OFREP event-stream URL (docs/ofrep.md "Event streams"). A browser's
 * EventSource cannot send an Authorization header, so the bulk answer links to the stream with a
 * token in the query instead of the API key: `<key id>.<expiry>.<mac>`, the expiry in Unix
 * seconds and the mac 128 bits of HMAC-SHA256, under a key derived from the server's secret, of
 * the key id, the scope it grants (`flags:client`) and the expiry. It names the key without
 * carrying it, cannot be made or stretched without the secret, and is the same on every server
 * sharing the secret. Whether the key still exists and is unrevoked is the caller's check.
 */

/** The one thing a stream token lets its holder do. */
const SCOPE = "flags:client";
/** Bytes of the HMAC kept: 128 bits, 22 base64url characters. */
const MAC_BYTES = 16;
const TOKEN = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{22})$/;

export type StreamTokenCheck =
  { ok: true; keyId: string; expiresAt: number } | { ok: false; reason: "malformed" | "forged" | "expired" };

export class StreamTokens {
  readonly #secret: ServerSecret;

  constructor(secret: ServerSecret) {
    this.#secret = secret;
  }

  /** A token for this key, valid until `expiresAt` (Unix seconds). */
  async issue(keyId: string, expiresAt: number): Promise<string> {
    return `${keyId}.${expiresAt}.${await this.#mac(keyId, expiresAt)}`;
  }

  /** Who the token names, when it was made here (compared in constant time) and `nowMs` is before its expiry. */
  async check(token: string, nowMs: number): Promise<StreamTokenCheck> {
    const parts = TOKEN.exec(token);
    if (!parts) return { ok: false, reason: "malformed" };
    const [, keyId, expiry, mac] = parts as unknown as [string, string, string, string];
    const expiresAt = Number(expiry);
    const expected = Buffer.from(await this.#mac(keyId, expiresAt));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return { ok: false, reason: "forged" };
    // Checked after the mac, so that an expired answer is never given for a made-up token.
    if (nowMs >= expiresAt * 1000) return { ok: false, reason: "expired" };
    return { ok: true, keyId, expiresAt };
  }

  async #mac(keyId: string, expiresAt: number): Promise<string> {
    const key = await this.#secret.keyFor("ofrep-stream");
    return createHmac("sha256", key)
      .update(`${keyId}\n${SCOPE}\n${expiresAt}`)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  }
}
