import type { Clock } from "../ports/clock.js";
import { FlagpostError } from "../errors.js";
import { uuidv7 } from "../ids.js";
import type { Storage, SuppressionRecord } from "../ports/storage/index.js";
import { isRecipientCaused } from "./bounce-classification.js";
import type { BounceReason, BounceSummary } from "./reports.js";
import { suppressionWrites } from "./suppression-writes.js";

/** The opt-in soft-bounce rule: suppress an address after `count` soft bounces within `days`. */
export interface SoftBounceSuppression {
  count: number;
  days: number;
}

export interface SuppressionOptions {
  /** Off by default: soft bounces never suppress. */
  softBounces?: SoftBounceSuppression;
}

/** One recipient's bounce, as a report or a refusal at RCPT gave it. */
export interface RecipientBounce {
  email: string;
  type: BounceSummary["type"];
  reason?: BounceReason;
  status?: string;
  diagnostic?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Checks the soft-bounce rule of createFlagpost's `suppression` option. */
export function checkSuppressionOptions(options: SuppressionOptions | undefined): void {
  const soft = options?.softBounces;
  if (soft === undefined) return;
  if (!Number.isInteger(soft.count) || soft.count < 1 || soft.count > 1000)
    throw new FlagpostError("validation_error", "suppression.softBounces.count must be a whole number from 1 to 1000");
  if (!(soft.days > 0 && soft.days <= 365))
    throw new FlagpostError("validation_error", "suppression.softBounces.days must be above 0 and at most 365");
}

/**
 * When a bounce or a complaint puts an address on the suppression list (docs/emails.md,
 * "Suppression"): a Permanent bounce for a reason about the recipient (never a sender-side one:
 * a blocklisted IP must not suppress every address it touched), a complaint, and, only when
 * `softBounces` is set, that many Transient recipient-caused bounces of one address within the
 * window. The entry keeps the reason, the bounce type and the server's words.
 */
export class SuppressionPolicy {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #soft: SoftBounceSuppression | undefined;

  constructor(storage: Storage, clock: Clock, options: SuppressionOptions = {}) {
    checkSuppressionOptions(options);
    this.#storage = storage;
    this.#clock = clock;
    this.#soft = options.softBounces;
  }

  /** Applies the rule to one bounced recipient of email `emailId`; answers the addresses suppressed (or already on the list). */
  async afterBounce(emailId: string, bounce: RecipientBounce): Promise<string[]> {
    if (bounce.email === "" || !isRecipientCaused(bounce.reason)) return [];
    if (bounce.type === "Permanent") return this.#add(emailId, bounce, "bounce");
    if (bounce.type !== "Transient" || this.#soft === undefined) return [];
    const now = this.#clock.now();
    const count = await this.#storage.suppressions.countSoftBounce(
      { id: uuidv7(now), email: bounce.email, emailId, at: now },
      now - this.#soft.days * DAY_MS,
    );
    return count >= this.#soft.count ? this.#add(emailId, bounce, "bounce") : [];
  }

  /** A complaint always suppresses the address that complained. */
  afterComplaint(emailId: string, email: string, diagnostic?: string): Promise<string[]> {
    return this.#add(
      emailId,
      { email, type: "Undetermined", reason: "feedback", ...(diagnostic === undefined ? {} : { diagnostic }) },
      "complaint",
    );
  }

  async #add(emailId: string, bounce: RecipientBounce, origin: "bounce" | "complaint"): Promise<string[]> {
    const now = this.#clock.now();
    const entry: SuppressionRecord = {
      id: uuidv7(now),
      email: bounce.email,
      origin,
      sourceId: emailId,
      createdAt: now,
    };
    if (bounce.reason !== undefined) entry.reason = bounce.reason;
    if (origin === "bounce") entry.bounceType = bounce.type;
    if (bounce.diagnostic !== undefined) entry.diagnostic = bounce.diagnostic.slice(0, 1024);
    await suppressionWrites(this.#storage).add([entry], now);
    return [bounce.email];
  }
}
