import { biglobeReader } from "./provider/biglobe.js";
import { ezwebReader } from "./provider/ezweb.js";
import { gmailReader } from "./provider/gmail.js";
import { gmxReader } from "./provider/gmx.js";
import { googleGroupsReader } from "./provider/google-groups.js";
import { googleWorkspaceReader } from "./provider/google-workspace.js";
import { kddiReader } from "./provider/kddi.js";
import { mailRuReader } from "./provider/mailru.js";
import { verizonReader } from "./provider/verizon.js";
import { yahooReader } from "./provider/yahoo.js";
import { zohoReader } from "./provider/zoho.js";
import type { BounceReader } from "./reader.js";

/**
 * Readers of mailbox providers' own bounces (Gmail, Yahoo, Mail.ru…), tried before the MTAs'.
 * Google Groups comes before Gmail: both are sent by mailer-daemon@googlemail.com, and the group's
 * notice is the more specific. Each reader first checks a sender or a sentence only its provider
 * writes, so the order among the others does not matter.
 */
export const PROVIDER_READERS: readonly BounceReader[] = [
  googleGroupsReader,
  gmailReader,
  googleWorkspaceReader,
  yahooReader,
  mailRuReader,
  gmxReader,
  zohoReader,
  ezwebReader,
  kddiReader,
  verizonReader,
  biglobeReader,
];
