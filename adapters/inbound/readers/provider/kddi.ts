import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressIn, factsOf, linesOf } from "./plain-text.js";

/**
 * KDDI's au one net (no-reply@…dion.ne.jp, …auone-net.jp): a Japanese notice, then
 * "Your mail sent on: …", "Could not be delivered to: <address>" and a reason sentence
 * ("As their mailbox is full."). The returned message is a MIME part or follows in the text.
 */
const NOT_DELIVERED = /^\s*Could not be delivered to:\s*(.*)$/;

export const kddiReader: BounceReader = {
  name: "kddi",
  read(message) {
    if (!/@(?:[a-z0-9-]+\.)*(?:dion\.ne\.jp|auone-net\.jp|au\.com)\b/i.test(message.from)) return undefined;
    const lines = linesOf(message.text);
    const recipients: ReaderRecipient[] = [];
    for (let i = 0; i < lines.length; i++) {
      const named = NOT_DELIVERED.exec(lines[i]!)?.[1];
      const recipient = named === undefined ? undefined : addressIn(named);
      if (recipient === undefined) continue;
      const words = lines[i + 1]?.trim() ?? "";
      const full = /mailbox is full/i.test(words);
      recipients.push({ recipient, ...factsOf(words), ...(full ? { reason: "mailboxfull" as const } : {}) });
    }
    const returnedAt = lines.findIndex((line) => /^Return-Path:/i.test(line));
    return {
      recipients,
      ...(returnedAt < 0 ? {} : { returnedHeaders: lines.slice(returnedAt).join("\n") }),
    };
  },
};
