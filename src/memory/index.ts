/** The seam adapters and the CLI use for the in-memory storage backend. */
export { memoryStorage } from "./memory-storage.js";
