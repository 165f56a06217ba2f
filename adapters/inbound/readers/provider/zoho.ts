import type { BounceReader, ReaderRecipient } from "../reader.js";
import { addressIn, factsOf, header, linesOf } from "./plain-text.js";

/**
 * Zoho Mail's bounce (mailer-daemon@mail.zoho.com, `X-Mailer: Zoho Mail`): after "This message was
 * created automatically by mail delivery software." one line per recipient, the address then
 * Zoho's words with the reply code and status after "ERROR_CODE :"; its delay notice instead
 * writes "[Status: Error, Address: <…>, ResponseCode 421, , Host not reachable.]". The returned
 * headers follow in the same text part, from the first "Received:" line.
 */
const FAILED_LINE = /^([^\s@]{1,64}@[^\s@]{1,255})\s+(.*ERROR_CODE.*)$/;
const DELAYED_LINE = /^\[Status: [^,]*, Address: <([^>]+)>, (.*)\]$/;

export const zohoReader: BounceReader = {
  name: "zoho",
  read(message) {
    const zoho = /@mail\.zoho\.com\b/i.test(message.from) || /zoho/i.test(header(message, "x-mailer"));
    if (!zoho || !message.text.includes("created automatically by mail delivery")) return undefined;
    const recipients: ReaderRecipient[] = [];
    const lines = linesOf(message.text);
    const returnedAt = lines.findIndex((line) => /^Received:\s*from /i.test(line));
    for (const line of returnedAt < 0 ? lines : lines.slice(0, returnedAt)) {
      const failed = FAILED_LINE.exec(line.trim());
      const delayed = failed === null ? DELAYED_LINE.exec(line.trim()) : null;
      const found = failed ?? delayed;
      const recipient = found === null ? undefined : addressIn(found[1]!);
      if (found === null || recipient === undefined) continue;
      const words = found[2]!.replace(/ERROR_CODE :/g, "").replace(/ResponseCode /, "");
      // "Host not reachable" in a failure notice: Zoho gave up retrying a server it never reached.
      const expired = delayed === null && /Host not reachable/i.test(words);
      recipients.push({
        recipient,
        ...(delayed === null ? {} : { action: "delayed" as const }),
        ...factsOf(words),
        ...(expired ? { reason: "expired" as const } : {}),
      });
    }
    const returnedHeaders = returnedAt < 0 ? undefined : lines.slice(returnedAt).join("\n");
    return { recipients, ...(returnedHeaders === undefined ? {} : { returnedHeaders }) };
  },
};
