import { FlagpostError } from "../../errors.js";
import { FLAG_KEY_PATTERN } from "../schema.js";

/** The flag list's keyset cursor: the last key of the page, base64url-encoded (opaque to clients). */
export function encodeFlagCursor(lastKey: string): string {
  return Buffer.from(lastKey, "utf8").toString("base64url");
}

export function decodeFlagCursor(cursor: string): string {
  const key = Buffer.from(cursor, "base64url").toString("utf8");
  // Only a key this API could have returned: never a text storage might refuse (NUL) or misread.
  if (!FLAG_KEY_PATTERN.test(key) || Buffer.from(key, "utf8").toString("base64url") !== cursor) {
    throw new FlagpostError("validation_error", '"cursor" is not a cursor this API returned', {
      details: [{ path: "cursor", message: "is not a cursor this API returned" }],
    });
  }
  return key;
}
