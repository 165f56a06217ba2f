import { createHash } from "node:crypto";
import type { Flagpost } from "../../../src/flagpost.js";

/**
 * A hash of every flag at the current revision, computed once per revision: the part of the bulk
 * ETag that moves when any flag changes, the same on every server sharing the storage. The event
 * stream compares it with the one its link was made at, to tell a client what it missed.
 */
export class FlagsVersion {
  readonly #fp: Flagpost;
  #last: { revision: number; version: string } | undefined;

  constructor(fp: Flagpost) {
    this.#fp = fp;
  }

  async current() {
    const state = await this.#fp.flagStream.state();
    if (this.#last?.revision !== state.revision) {
      const version = createHash("sha256").update(JSON.stringify(state.flags)).digest("base64url");
      this.#last = { revision: state.revision, version };
    }
    return { state, version: this.#last.version };
  }
}
