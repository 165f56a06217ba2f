import type { Logger } from "flagpost";

/**
 * A logger that drops every line, so that log formatting is not part of what a benchmark times.
 * flagpost's own silentLogger is internal (not in package.json `exports`); a user passes an object
 * like this one, which the public `Logger` type describes.
 */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
