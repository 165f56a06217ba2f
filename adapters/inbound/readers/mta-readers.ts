import { apachejamesReader } from "./mta/apachejames.js";
import { courierReader } from "./mta/courier.js";
import { dominoReader } from "./mta/domino.js";
import { dragonflyReader } from "./mta/dragonfly.js";
import { eximReader } from "./mta/exim.js";
import { exchange2003Reader } from "./mta/exchange2003.js";
import { fmlReader } from "./mta/fml.js";
import { imailserverReader } from "./mta/imailserver.js";
import { mailfoundryReader } from "./mta/mailfoundry.js";
import { mailmarshalReader } from "./mta/mailmarshal.js";
import { messagingserverReader } from "./mta/messagingserver.js";
import { mfilterReader } from "./mta/mfilter.js";
import { notesReader } from "./mta/notes.js";
import { opensmtpdReader } from "./mta/opensmtpd.js";
import { postfixReader } from "./mta/postfix.js";
import { qmailReader } from "./mta/qmail.js";
import { sendmailReader } from "./mta/sendmail.js";
import { v5sendmailReader } from "./mta/v5sendmail.js";
import { x1Reader } from "./mta/x1.js";
import { x2Reader } from "./mta/x2.js";
import { x3Reader } from "./mta/x3.js";
import { x6Reader } from "./mta/x6.js";
import type { BounceReader } from "./reader.js";

/**
 * Readers of the plain-text bounces MTAs write, in the order tried: those recognised by a header
 * of their own (X-Mailer, a Received trace) before those recognised by their words alone.
 */
export const MTA_READERS: readonly BounceReader[] = [
  mfilterReader,
  mailmarshalReader,
  imailserverReader,
  exchange2003Reader,
  fmlReader,
  dominoReader,
  mailfoundryReader,
  messagingserverReader,
  apachejamesReader,
  courierReader,
  dragonflyReader,
  eximReader,
  qmailReader,
  opensmtpdReader,
  v5sendmailReader,
  sendmailReader,
  postfixReader,
  x2Reader,
  x3Reader,
  x1Reader,
  x6Reader,
  notesReader,
];
