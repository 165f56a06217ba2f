import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { addressIn, addWords, type Found, openNotice, type ReasonTable, reportOf } from "./common.js";

/**
 * HCL (IBM, Lotus) Domino: "DELIVERY FAILURE: …", "Your message / Subject: … / was not delivered
 * to: / <address> / because: / <reason>", in the server's language; the original is attached.
 */

const REASONS: ReasonTable = {
  filtered: ["Cannot route mail to user"],
  systemerror: ["Several matches found in Domino Directory"],
  userunknown: [
    "not listed in Domino Directory",
    "not listed in public Name & Address Book",
    "no se encuentra en el Directorio de Domino",
    "non répertorié dans l'annuaire Domino",
    "Domino ディレクトリには見つかりません",
  ],
  networkerror: ["Maximum hop count exceeded"],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!/^DELIVERY[ _]FAILURE:/.test(message.subject)) return undefined;
  const opened = openNotice(message, ["Content-Type: message/rfc822"], (line) => line.startsWith("Your message"));
  if (opened === undefined) return undefined;
  const found: Found[] = [];
  let current: Found | undefined;
  let section: "to" | "because" | undefined;
  for (const line of opened.after) {
    if (line.trim() === "") continue;
    if (line === "was not delivered to:") section = "to";
    else if (line === "because:") section = "because";
    else if (section === "to" && line.startsWith("  ")) {
      const address = addressIn(line);
      if (address === undefined) continue;
      current = { recipient: address, diagnostic: "" };
      found.push(current);
    } else if (section === "because" && current && line.startsWith("  ")) addWords(current, line);
    else if (!line.startsWith("  ")) section = undefined;
  }
  return reportOf(found, opened.quoted, message, REASONS);
}

export const dominoReader: BounceReader = { name: "domino", read };
