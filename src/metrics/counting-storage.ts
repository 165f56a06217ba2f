import { FlagpostError } from "../errors.js";
import type { EmailOutcomeWrite, EmailTransition } from "../ports/storage/emails.js";
import type { DomainEvent, Storage, StorageTransaction } from "../ports/storage/index.js";
import type { DeliveryOutcome } from "../ports/storage/webhooks.js";
import type { MetricsCounters } from "./counters.js";

/**
 * Counts what the services store, at the one place every change passes: the repository write.
 * A send, bounce or complaint counts when its status change is stored (not when it is attempted),
 * so the counters agree with the database and with the webhooks those writes emit. A storage call
 * that fails (a driver error, `unavailable`) counts as a storage error of its repository; a
 * conflict or not-found it answers with does not. Nothing here touches the flag
 * hot path: `isEnabled` reads no storage.
 */

type AnyFunction = (...args: unknown[]) => unknown;

/** A failure of the storage itself; a conflict or a refusal the contract names is an answer, not an error. */
function isStorageFailure(error: unknown): boolean {
  return !(error instanceof FlagpostError) || error.code === "unavailable" || error.code === "internal_server_error";
}

function bounceTypeOf(transition: EmailTransition): string | undefined {
  const bounce = transition.event.detail?.bounce as { type?: unknown } | undefined;
  return typeof bounce?.type === "string" ? bounce.type : undefined;
}

/** What a successful write of `method` with `args` and `result` adds to the counters. */
function countWrite(counters: MetricsCounters, repository: string, method: string, args: unknown[], result: unknown) {
  if (repository === "emails" && method === "transitionEmail" && result !== undefined) {
    const transition = args[1] as EmailTransition;
    counters.emailEvent(transition.event.type, bounceTypeOf(transition));
  } else if (repository === "emails" && (method === "recordOutcomes" || method === "recordOutcomesAndClaim")) {
    const applied = method === "recordOutcomes" ? (result as boolean[]) : (result as { applied: boolean[] }).applied;
    (args[0] as EmailOutcomeWrite[]).forEach((write, i) => {
      if (!applied[i]) return;
      if ("transition" in write) counters.emailEvent(write.transition.event.type, bounceTypeOf(write.transition));
      else counters.emailEvent(write.retry.event.type);
    });
  } else if (repository === "emails" && method === "scheduleRetry" && result !== undefined) {
    counters.emailEvent("delivery_delayed");
  } else if (repository === "events" && method === "appendEvents") {
    counters.eventsAccepted += (args[0] as unknown[]).length;
  } else if (repository === "webhookDeliveries" && method === "recordDeliveryOutcomes") {
    const applied = result as boolean[];
    (args[0] as DeliveryOutcome[]).forEach((outcome, i) => {
      if (applied[i]) counters.webhookDelivery(outcome.next.status === "attempting" ? "retry" : outcome.next.status);
    });
  }
}

function countingRepository<T extends object>(repository: string, target: T, counters: MetricsCounters): T {
  const wrapped = new Map<PropertyKey, AnyFunction>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property) as unknown;
      if (typeof value !== "function") return value;
      let counting = wrapped.get(property);
      if (counting === undefined) {
        const method = String(property);
        const original = value as AnyFunction;
        counting = function (this: unknown, ...args: unknown[]) {
          let result: unknown;
          try {
            result = original.apply(object, args);
          } catch (error) {
            if (isStorageFailure(error)) counters.storageError(repository);
            throw error;
          }
          if (!(result instanceof Promise)) return result;
          // Counted on a side chain and the caller gets the storage's own promise: a chained
          // `then` would add a tick to every storage call, enough to merge two flag writes into
          // one stream batch (test/flags/flag-stream.test.ts). The side chain's reactions were
          // registered first, so the count is made before the caller resumes.
          result
            .then(
              (settled: unknown) => countWrite(counters, repository, method, args, settled),
              (error: unknown) => {
                if (isStorageFailure(error)) counters.storageError(repository);
              },
            )
            .catch(() => undefined); // a count that cannot be made is never worth an unhandled rejection
          return result;
        };
        wrapped.set(property, counting);
      }
      return counting;
    },
  });
}

/**
 * `storage.transaction` that counts the addresses a committed transaction put on the suppression
 * list: the `suppression.added` events it stored, one per address added (suppression-writes.ts).
 * Counted per attempt (a retried transaction runs `fn` again) and only once it commits, on a side
 * chain like the repositories' counts.
 */
function countingTransaction(storage: Storage, counters: MetricsCounters): Storage["transaction"] {
  return <T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T> => {
    let added = 0;
    const result = storage.transaction((tx) => {
      added = 0;
      const record = (events: readonly DomainEvent[]) => {
        added += events.filter((event) => event.type === "suppression.added").length;
        return tx.domainEvents.record(events);
      };
      const domainEvents = { record };
      // A proxy, not a spread: a transaction's parts may be getters of a class (as repositories may).
      return fn(new Proxy(tx, { get: (t, p) => (p === "domainEvents" ? domainEvents : Reflect.get(t, p)) }));
    });
    result.then(() => (counters.suppressionsAdded += added)).catch(() => undefined);
    return result;
  };
}

/** `storage` with its repositories counted into `counters`; everything else passes through. */
export function countingStorage(storage: Storage, counters: MetricsCounters): Storage {
  const repositories = new Map<PropertyKey, object>();
  const transaction = countingTransaction(storage, counters);
  return new Proxy(storage, {
    get(object, property) {
      if (property === "transaction") return transaction;
      const value = Reflect.get(object, property) as unknown;
      if (typeof value === "function") return (value as AnyFunction).bind(object);
      if (value === null || typeof value !== "object") return value;
      let repository = repositories.get(property);
      if (repository === undefined) {
        repository = countingRepository(String(property), value, counters);
        repositories.set(property, repository);
      }
      return repository;
    },
  });
}
