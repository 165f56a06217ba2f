/** The seam adapters and the CLI use for the remote flag client (snapshot over HTTP, updates over SSE). */
export { createRemoteFlagClient } from "./remote-flag-client.js";
