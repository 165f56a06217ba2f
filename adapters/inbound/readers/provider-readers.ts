import type { BounceReader } from "./reader.js";

/** Readers of mailbox providers' own bounces (Gmail, Yahoo, Outlook.com, Mail.ru…), tried before the MTAs'. */
export const PROVIDER_READERS: readonly BounceReader[] = [];
