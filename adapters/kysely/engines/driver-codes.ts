/** The codes pg, mysql2 and better-sqlite3 put on their errors (never their messages, which can hold SQL and values). */
export interface CodedError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  /** AggregateError: pg and mysql2 try every address of a host name and report each failure. */
  errors?: unknown;
}

export function codes(error: unknown): CodedError {
  return typeof error === "object" && error !== null ? (error as CodedError) : {};
}
