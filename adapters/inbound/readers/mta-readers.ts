import { dragonflyReader } from "./mta/dragonfly.js";
import { eximReader } from "./mta/exim.js";
import { opensmtpdReader } from "./mta/opensmtpd.js";
import { qmailReader } from "./mta/qmail.js";
import { v5sendmailReader } from "./mta/v5sendmail.js";
import type { BounceReader } from "./reader.js";

/** Readers of the plain-text bounces MTAs write (Exim, qmail, Sendmail, Postfix, dma, OpenSMTPD…), in the order tried. */
export const MTA_READERS: readonly BounceReader[] = [dragonflyReader, eximReader, qmailReader, opensmtpdReader, v5sendmailReader];
