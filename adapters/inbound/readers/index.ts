import { MTA_READERS } from "./mta-readers.js";
import { PROVIDER_READERS } from "./provider-readers.js";
import type { BounceReader } from "./reader.js";

export type { BounceMessage, BounceReader, ReaderRecipient } from "./reader.js";

/** Every reader, in the order tried: a provider's own format is more specific than its MTA's. */
export const BOUNCE_READERS: readonly BounceReader[] = [...PROVIDER_READERS, ...MTA_READERS];
