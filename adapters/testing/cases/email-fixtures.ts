import type { EmailOutcomeWrite, EmailRecord, EmailRetry, EmailTransition } from "../../../src/ports/storage/emails.js";

export const T0 = Date.parse("2026-06-01T10:00:00.000Z");
let counter = 0;

/** Ids that sort by creation, as uuidv7 ids do. */
export function id(n: number): string {
  return `0197${String(n).padStart(4, "0")}-0000-7000-8000-${String(++counter).padStart(12, "0")}`;
}

/** A queued email, due at T0, for the storage cases. */
export function email(n: number, overrides: Partial<EmailRecord> = {}): EmailRecord {
  const emailId = overrides.id ?? id(n);
  return {
    id: emailId,
    content: {
      from: "Flagpost <hello@example.com>",
      to: [`user${n}@example.com`],
      subject: `Subject ${n}`,
      text: "plain",
    },
    status: "queued",
    messageId: `<${emailId}@example.com>`,
    createdAt: T0,
    attempts: 0,
    nextAttemptAt: T0,
    ...overrides,
  };
}

export const LEASE = 60_000;

/** What the worker holding the email's lease (owner "w") records when the server took it at `at`. */
export function sentOutcome(id: string, at: number, more: Partial<EmailTransition> = {}): EmailOutcomeWrite {
  return {
    id,
    transition: { from: ["queued"], leaseOwner: "w", to: "sent", sentAt: at, event: { type: "sent", at }, ...more },
  };
}

/** A delayed attempt of email `id` by worker "w" at `at` ("451 later"), to be tried again at `nextAttemptAt`. */
export function retryOutcome(id: string, at: number, nextAttemptAt: number): EmailOutcomeWrite {
  const retry: EmailRetry = {
    leaseOwner: "w",
    nextAttemptAt,
    lastError: "451 later",
    event: { type: "delivery_delayed", at },
  };
  return { id, retry };
}

/** A delivery report that reaches a queued email first: sent and delivered at once, at `at`. */
export function deliveredFirst(at: number): EmailTransition {
  return { from: ["queued"], to: "delivered", sentAt: at, deliveredAt: at, event: { type: "delivered", at } };
}
