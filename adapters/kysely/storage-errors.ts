import type { Engine } from "./dialect.js";
import { toStorageError } from "./driver-errors.js";

/** The public methods of a repository class. */
type MethodKeys<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];

type Arguments<F> = F extends (...args: infer A) => unknown ? A : never;

/**
 * What a repository method was doing, for the `unavailable` error a driver error becomes ("The
 * PostgreSQL database could not <action> (code)"), and, for a write that a UNIQUE key can refuse,
 * the `conflict` message built from the method's own arguments.
 */
export type StorageAction<F> =
  string | { readonly action: string; readonly conflict: (...args: Arguments<F>) => string };

/**
 * One entry per public method, required by the type, so a new repository method cannot be added
 * without saying how its driver errors read.
 */
export type StorageActions<T> = { readonly [K in MethodKeys<T>]: StorageAction<T[K]> };

/** A repository class as kysely-storage.ts builds it: its constructor and its actions table. */
export interface RepositoryClass<T, A extends unknown[]> {
  new (...args: A): T;
  readonly actions: StorageActions<T>;
}

/**
 * Builds a repository and wraps each of its methods so that whatever the driver throws reaches
 * the caller as the error the port promises ({@link toStorageError}): the one place driver
 * errors are translated, so repository methods hold no try/catch for it. FlagpostErrors pass
 * through unchanged; an error a method catches on purpose (a unique key that decides a race)
 * never reaches the wrapper. A method that returns a plain value keeps returning it.
 */
export function translatedRepository<T extends object, A extends unknown[]>(
  engine: Engine,
  Repository: RepositoryClass<T, A>,
  ...args: A
): T {
  const repository = new Repository(...args);
  const wrapped: Record<string, unknown> = {};
  const actions = Repository.actions as Record<string, StorageAction<(...args: unknown[]) => unknown>>;
  for (const name of methodNames(repository)) {
    const entry = actions[name];
    if (entry === undefined) throw new Error(`${Repository.name}.${name} has no entry in ${Repository.name}.actions`);
    const method = (repository as Record<string, (...args: unknown[]) => unknown>)[name]!.bind(repository);
    const action = typeof entry === "string" ? entry : entry.action;
    const conflict = typeof entry === "string" ? undefined : entry.conflict;
    const translate = (error: unknown, args: unknown[]) =>
      toStorageError(engine, action, error, conflict && conflict(...args));
    wrapped[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method(...args);
      } catch (error) {
        throw translate(error, args);
      }
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        throw translate(error, args);
      });
    };
  }
  return wrapped as T;
}

/** The public methods along the prototype chain (not the constructor, not Object's own). */
function methodNames(instance: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(instance) as object | null; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== "constructor" && typeof Reflect.get(proto, name) === "function") names.add(name);
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...names];
}
