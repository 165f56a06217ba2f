import type { EmailRecord, EmailStatus, EpochMs } from "../ports/storage/index.js";

/**
 * docs/api.md's status lifecycle as data. Each status lists the statuses it may move to; anything
 * else is refused and leaves the email unchanged.
 *
 * | from              | trigger                                                   | to         |
 * |-------------------|-----------------------------------------------------------|------------|
 * | (none)            | accepted                                                  | queued     |
 * | queued            | transport accepted it for the next hop                    | sent       |
 * | queued            | transport reports final delivery                          | delivered  |
 * | queued            | every recipient rejected permanently (SMTP 5xx)           | bounced    |
 * | queued            | permanent failure, or transient ones past the retry budget | failed    |
 * | queued            | every recipient is on the suppression list                | failed (`suppressed`) |
 * | queued, scheduled | canceled before a worker claimed it                       | canceled   |
 * | sent              | delivery report                                           | delivered, bounced |
 * | sent, delivered   | complaint report                                          | complained |
 */
export const TRANSITIONS: Readonly<Record<EmailStatus, readonly EmailStatus[]>> = {
  queued: ["sent", "delivered", "bounced", "failed", "canceled"],
  sent: ["delivered", "bounced", "complained"],
  delivered: ["complained"],
  bounced: [],
  failed: [],
  complained: [],
  canceled: [],
};

export const EMAIL_STATUSES = Object.keys(TRANSITIONS) as EmailStatus[];

/** The statuses from which `to` can be reached. */
export function sourcesOf(to: EmailStatus): EmailStatus[] {
  return EMAIL_STATUSES.filter((from) => TRANSITIONS[from].includes(to));
}

export type TransitionResult =
  { ok: true; status: EmailStatus; sentAt?: EpochMs; deliveredAt?: EpochMs } | { ok: false; reason: string };

/**
 * Applies `to` at time `at` to an email, or refuses it. Timestamps are set once and never move
 * backwards: `sentAt` is kept when set; reaching `delivered` sets `sentAt` too (a transport that
 * reports final delivery handed it on at that moment), and `deliveredAt` is never before `sentAt`.
 */
export function applyTransition(
  email: Pick<EmailRecord, "status" | "sentAt" | "deliveredAt">,
  to: EmailStatus,
  at: EpochMs,
): TransitionResult {
  if (!TRANSITIONS[email.status].includes(to)) {
    return { ok: false, reason: `An email that is ${email.status} cannot become ${to}` };
  }
  const result: TransitionResult = { ok: true, status: to };
  if (email.sentAt !== undefined) result.sentAt = email.sentAt;
  if (email.deliveredAt !== undefined) result.deliveredAt = email.deliveredAt;
  if (to === "sent" || to === "delivered") result.sentAt ??= at;
  if (to === "delivered") result.deliveredAt ??= Math.max(at, result.sentAt!);
  return result;
}
