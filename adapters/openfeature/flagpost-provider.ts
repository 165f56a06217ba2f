import {
  ErrorCode,
  type EvaluationContext,
  GeneralError,
  type JsonValue,
  OpenFeatureEventEmitter,
  type Provider,
  ProviderEvents,
  ProviderFatalError,
  type ResolutionDetails,
  StandardResolutionReasons,
  type TrackingEventDetails,
} from "@openfeature/server-sdk";
import type { EventSink } from "../../src/flags/client/index.js";
import type { FlagClient, FlagClientEvent, FlagEvaluation } from "../../src/flags/client/index.js";
import { asLogger, errorFields, type Logger, silentLogger } from "../../src/ports/logger.js";
import { resolveValue, servedReason } from "./value-resolution.js";

/**
 * An OpenFeature server provider over a flagpost FlagClient: the in-process one (`fp`, or
 * `fp.flagClient`) or a remote one (`createRemoteFlagClient`). Evaluation is the client's own,
 * synchronous and local; the provider only maps contexts in and reasons out. Every flag resolves as
 * a boolean; a flag with values resolves as a string, number or object by its values' JSON type
 * (value-resolution.ts), and a flag with variants but no values as a string (the variant key).
 */

export interface FlagpostProviderOptions {
  /**
   * Where `track()` events go: flagpost's EventTracker (`fp.events`) or any object with
   * `enqueue(event)`. When the source has an `events` sink (a Flagpost instance), it is used.
   */
  events?: EventSink;
  /** For track() events that cannot be recorded. Default: the source's logger (a Flagpost instance's), else none. */
  logger?: Logger;
  /**
   * `initialize()` fails with a clear error when flagpost is not ready within this time (storage
   * unreachable, migrations stuck, a remote server down). Default 30 s.
   */
  initializeTimeoutMs?: number;
}

/**
 * What the provider accepts: a FlagClient, or anything holding one (a Flagpost instance). A source
 * with `ready()` is started by `initialize()`, so `setProviderAndWait(new FlagpostProvider(fp))`
 * needs no `fp.ready()` before it.
 */
export type FlagpostProviderSource =
  FlagClient | { flagClient: FlagClient; events?: EventSink; logger?: Logger; ready?(): Promise<void> };

export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;

/** The resolution reason of a flag whose prerequisite was not met (docs/flags.md "Prerequisites"). */
export const PREREQUISITE_FAILED = "PREREQUISITE_FAILED";

/** `work`, or a rejection after `ms` naming what did not finish. The timer keeps the process alive while it waits. */
function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function isClient(source: FlagpostProviderSource): source is FlagClient {
  return !("flagClient" in source);
}

/**
 * OpenFeature's context → flagpost's: `targetingKey` is the userId, every other field an
 * attribute. Dates become ISO-8601 strings so the date operators (gt, lt, …) compare them.
 */
export function toFlagContext(context: EvaluationContext): { userId?: string; attributes: Record<string, unknown> } {
  const attributes: Record<string, unknown> = {};
  let userId: string | undefined;
  for (const name in context) {
    if (!Object.hasOwn(context, name)) continue;
    const value = context[name];
    if (name === "targetingKey") {
      if (typeof value === "string" && value !== "") userId = value;
      continue;
    }
    attributes[name] = value instanceof Date ? value.toISOString() : value;
  }
  return userId === undefined ? { attributes } : { userId, attributes };
}

export class FlagpostProvider implements Provider {
  readonly metadata = { name: "flagpost" } as const;
  readonly runsOn = "server" as const;
  readonly events = new OpenFeatureEventEmitter();
  readonly #client: FlagClient;
  readonly #sink: EventSink | undefined;
  readonly #logger: Logger;
  readonly #start: (() => Promise<void>) | undefined;
  readonly #timeoutMs: number;
  #unsubscribe: (() => void) | undefined;
  /** Set when the SDK was told something is wrong (a failed start, STALE, ERROR): the next "ready" is news. */
  #degraded = false;

  constructor(source: FlagpostProviderSource, options: FlagpostProviderOptions = {}) {
    this.#client = isClient(source) ? source : source.flagClient;
    const fromSource = isClient(source) ? undefined : source.events;
    this.#sink = options.events ?? (typeof fromSource?.enqueue === "function" ? fromSource : undefined);
    this.#logger = options.logger
      ? asLogger(options.logger)
      : ((isClient(source) ? undefined : source.logger) ?? silentLogger);
    this.#start = !isClient(source) && typeof source.ready === "function" ? () => source.ready!() : undefined;
    this.#timeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
  }

  /**
   * Starts a Flagpost source (`fp.ready()`: migrations, first snapshot) and resolves once the client
   * has its first snapshot, or fails after `initializeTimeoutMs`; a refused API key is fatal.
   */
  async initialize(): Promise<void> {
    this.#unsubscribe ??= this.#client.subscribe((event) => this.#forward(event));
    try {
      const started = this.#start ? this.#start().then(() => this.#client.ready()) : this.#client.ready();
      await within(this.#timeoutMs, "flagpost's start (storage, first flag snapshot)", started);
    } catch (error) {
      this.#degraded = true;
      const message = error instanceof Error ? error.message : String(error);
      // A source that gave up (a refused key) will not recover; a slow start may.
      if (this.#client.status === "failed") throw new ProviderFatalError(message);
      throw new GeneralError(message);
    }
  }

  /** Stops forwarding the client's events. The client itself belongs to whoever created it. */
  async onClose(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  async resolveBooleanEvaluation(
    flagKey: string,
    defaultValue: boolean,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<boolean>> {
    const { userId, attributes } = toFlagContext(context);
    const result = this.#client.evaluate(flagKey, { userId, attributes, default: defaultValue });
    return this.#details(flagKey, defaultValue, result);
  }

  /** The user's variant's string value; for a flag with variants but no values, the variant key (value-resolution.ts). */
  async resolveStringEvaluation(
    flagKey: string,
    defaultValue: string,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<string>> {
    return this.#value("string", flagKey, defaultValue, context);
  }

  async resolveNumberEvaluation(
    flagKey: string,
    defaultValue: number,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<number>> {
    return this.#value("number", flagKey, defaultValue, context);
  }

  /** Object and array values alike: OpenFeature's object is any JSON structure. */
  async resolveObjectEvaluation<T extends JsonValue>(
    flagKey: string,
    defaultValue: T,
    context: EvaluationContext,
  ): Promise<ResolutionDetails<T>> {
    return this.#value("object", flagKey, defaultValue, context);
  }

  #value<T>(kind: "string" | "number" | "object", flagKey: string, defaultValue: T, context: EvaluationContext) {
    return resolveValue(this.#client, kind, flagKey, defaultValue, context, toFlagContext, (result) =>
      this.#details(flagKey, false, result),
    );
  }

  /** Hands the event to the EventTracker: `targetingKey` is the userId, the details its properties. */
  track(trackingEventName: string, context: EvaluationContext, trackingEventDetails: TrackingEventDetails): void {
    if (!this.#sink) return;
    const { userId } = toFlagContext(context);
    if (userId === undefined) {
      this.#logger.warn("track() needs a targetingKey (the userId); event dropped", { event: trackingEventName });
      return;
    }
    try {
      const result = this.#sink.enqueue({ event: trackingEventName, userId, properties: { ...trackingEventDetails } });
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
        (result as PromiseLike<unknown>).then(undefined, (error: unknown) =>
          this.#logger.warn("track() event could not be enqueued", errorFields(error)),
        );
      }
    } catch (error) {
      this.#logger.warn("track() event could not be enqueued", errorFields(error));
    }
  }

  #details(flagKey: string, defaultValue: boolean, result: FlagEvaluation): ResolutionDetails<boolean> {
    switch (result.reason) {
      case "rule_match": {
        const ruleType = this.#client.ruleType(flagKey, result.ruleIndex!) ?? "unknown";
        const flagMetadata = { ruleIndex: result.ruleIndex!, ruleType };
        // A flag with variants but no values still serves a variant: named by the rule, or weighted.
        if (result.variant !== undefined)
          return {
            value: result.enabled,
            variant: result.variant,
            reason: servedReason(this.#client, flagKey, result),
            flagMetadata,
          };
        return {
          value: result.enabled,
          reason:
            ruleType === "percentage" ? StandardResolutionReasons.SPLIT : StandardResolutionReasons.TARGETING_MATCH,
          flagMetadata,
        };
      }
      case "disabled":
        return { value: result.enabled, reason: StandardResolutionReasons.DISABLED };
      case "prerequisite_failed":
        // OpenFeature's reason is an open string; LaunchDarkly's provider reports this one the same way.
        return { value: result.enabled, reason: PREREQUISITE_FAILED };
      case "no_rules":
        return result.variant === undefined
          ? { value: result.enabled, reason: StandardResolutionReasons.STATIC }
          : { value: result.enabled, variant: result.variant, reason: StandardResolutionReasons.SPLIT };
      case "no_rule_match":
        return { value: result.enabled, reason: StandardResolutionReasons.DEFAULT };
      case "flag_not_found":
        return {
          value: defaultValue,
          reason: StandardResolutionReasons.ERROR,
          errorCode: ErrorCode.FLAG_NOT_FOUND,
          errorMessage: `flag "${flagKey}" does not exist`,
        };
      case "error": {
        const errorCode = this.#client.status === "not_ready" ? ErrorCode.PROVIDER_NOT_READY : ErrorCode.GENERAL;
        return {
          value: defaultValue,
          reason: StandardResolutionReasons.ERROR,
          errorCode,
          errorMessage: result.errorMessage,
        };
      }
    }
  }

  #forward(event: FlagClientEvent): void {
    switch (event.type) {
      case "ready":
        if (this.#degraded) this.events.emit(ProviderEvents.Ready);
        this.#degraded = false;
        return;
      case "changed":
        this.events.emit(ProviderEvents.ConfigurationChanged, { flagsChanged: event.keys });
        return;
      case "stale":
        this.#degraded = true;
        this.events.emit(ProviderEvents.Stale, { message: event.message });
        return;
      case "failed":
        // After a start the last snapshot is still served: an error, not a fatal one.
        this.#degraded = true;
        this.events.emit(ProviderEvents.Error, { message: event.message });
        return;
    }
  }
}
