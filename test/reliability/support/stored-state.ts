import type { BackendApp } from "./every-backend.js";

/** Far enough ahead that every stored email is due, so a claim finds them all. */
const FAR_FUTURE = Date.parse("2999-01-01T00:00:00.000Z");
/** Each count claims one second later, past the 1 ms leases of the count before. */
let counts = 0;

/**
 * What a backend holds, without ids and timestamps: its flags, how many events and how many
 * emails. Counting emails claims them (the only way the port lists them), so the flagpost under
 * test must have no transport (nothing else claims) and each count claims at a later instant than the one before, past its leases.
 */
export async function storedState(
  b: BackendApp,
): Promise<{ flags: unknown[]; events: number; emails: number; suppressions: number }> {
  const flags = (await b.app.fp.flags.all()).map(({ key, description, enabled, rules }) => ({
    key,
    description,
    enabled,
    rules,
  }));
  const events = (await b.app.fp.events.query({ limit: 1000 })).data.length;
  const claimed = await b.storage.emails.claimDueEmails(FAR_FUTURE + ++counts * 1000, 10_000, 1, "stored-state");
  const suppressions = (await b.storage.suppressions.listSuppressions({}, { limit: 1000 })).length;
  return { flags, events, emails: claimed.length, suppressions };
}
