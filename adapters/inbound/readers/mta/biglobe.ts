import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import {
  cutAt,
  type Found,
  isAddress,
  linesOf,
  quotedHeaders,
  type ReasonTable,
  recipientOf,
  resultOf,
} from "./common.js";

/**
 * BIGLOBE (NEC's ISP mail): "Returned mail: …" from postmaster@biglobe.ne.jp, "----- The following
 * addresses had delivery problems -----" with bare addresses, then "----- Non-delivered information
 * -----" and the reason; the original is attached.
 */

const REASONS: ReasonTable = {
  filtered: ["Mail Delivery Failed... User unknown"],
  mailboxfull: ["The number of messages in recipient's mailbox exceeded the local limit."],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.from.includes("postmaster@biglobe.ne.jp") || !message.subject.startsWith("Returned mail:"))
    return undefined;
  const { notice, quoted } = cutAt(message.text, ["Content-Type: message/rfc822"]);
  const lines = linesOf(notice);
  const start = lines.findIndex((line) => line.includes("----- The following addresses had delivery problems -----"));
  if (start < 0) return undefined;
  const found: Found[] = [];
  let info = false;
  let words = "";
  for (const line of lines.slice(start + 1)) {
    if (line.includes("----- Non-delivered information -----")) info = true;
    else if (!info && isAddress(line)) found.push({ recipient: line.trim() });
    else if (info && line.trim() !== "") words = `${words} ${line}`;
  }
  return resultOf(
    found.map((f) => recipientOf({ ...f, diagnostic: words }, REASONS)),
    quotedHeaders(quoted, message),
  );
}

export const biglobeReader: BounceReader = { name: "biglobe", read };
