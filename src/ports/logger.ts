/**
 * Structured logging. The library logs little (warnings and errors by default) and never a
 * secret: no API keys, no Authorization header, no stack traces, no request bodies.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The Logger a caller passed, ready for flagpost's calls. The port is message-first, as console
 * is (`warn(message, fields)`), so console and jsonLogger are used as they are. pino is
 * fields-first (`warn(fields, message)`): called message-first it would drop the fields, so a pino
 * logger (recognised by its `child` and `bindings` methods) is wrapped once here. Every entry
 * that takes a `logger` option passes it through this.
 */
export function asLogger(logger: Logger): Logger {
  const shape = logger as { child?: unknown; bindings?: unknown };
  if (typeof shape.child !== "function" || typeof shape.bindings !== "function") return logger;
  const fieldsFirst = logger as unknown as Record<Level, (fields: object, message: string) => void>;
  return {
    info: (message, fields = {}) => fieldsFirst.info(fields, message),
    warn: (message, fields = {}) => fieldsFirst.warn(fields, message),
    error: (message, fields = {}) => fieldsFirst.error(fields, message),
  };
}

type Level = "info" | "warn" | "error";

/** One JSON object per line on `write`, with `time`, `level` and `msg`. */
export function jsonLogger(write: (line: string) => void, minLevel: Level = "info"): Logger {
  const order: Record<Level, number> = { info: 0, warn: 1, error: 2 };
  const log =
    (level: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (order[level] < order[minLevel]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
    };
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/** The embedded default: warnings and errors to stderr, nothing else. */
export const defaultLogger: Logger = jsonLogger((line) => process.stderr.write(line), "warn");

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** `scheme://user:password@host` → `scheme://user:***@host`: driver errors quote connection URLs. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+@/gi;

export function redactCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, "$1***@");
}

/**
 * What may be logged of an error: its kind, code and message (with any password inside a URL
 * masked), never its stack.
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { error: error.name, ...(code === undefined ? {} : { code }), message: redactCredentials(error.message) };
  }
  return { error: typeof error };
}
