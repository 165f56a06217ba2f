import { eximReader } from "./mta/exim.js";
import type { BounceReader } from "./reader.js";

/** Readers of the plain-text bounces MTAs write (Exim, qmail, Sendmail, Postfix, dma, OpenSMTPD…), in the order tried. */
export const MTA_READERS: readonly BounceReader[] = [eximReader];
