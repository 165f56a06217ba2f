import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { cutAt, type Found, header, linesOf, type ReasonTable, reportOf } from "./common.js";

/**
 * fml, the mailing-list manager: its "-admin" address answers a post it refused (not a member,
 * a loop, a security alert) with the list's address in angle brackets, then "Original mail as
 * follows:" and the original indented by three spaces.
 */

/** fml's own subjects and sentences, by the reason each decides. */
const REASONS: ReasonTable = {
  rejected: [
    " are not member",
    "NOT MEMBER article from ",
    "reject mail ",
    "Spam mail from a spammer is rejected",
    " header may cause mail loop",
    "reject spammers:",
    "You are not a member of this mailing list",
  ],
  systemerror: [
    "fml system error message",
    "Loop Alert: ",
    "Loop Back Warning",
    "WARNING: UNIX FROM Loop",
    " has detected a loop condition so that",
    "Duplicated Message-ID",
  ],
  securityerror: ["Security Alert"],
};

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.headers.has("x-mlserver") || !message.from.includes("-admin@")) return undefined;
  if (!/\.FML/i.test(header(message, "message-id"))) return undefined;
  const { notice, quoted } = cutAt(message.text, ["Original mail as follows:"]);
  const found: Found[] = [];
  for (const line of linesOf(notice)) {
    const list = /<([^<>\s]+@[^<>\s]+)>/.exec(line);
    if (list && !found.some((f) => f.recipient === list[1])) found.push({ recipient: list[1], diagnostic: line });
  }
  const reason = (REASONS.rejected ?? []).some((p) => message.subject.includes(p))
    ? "rejected"
    : (REASONS.systemerror ?? []).some((p) => message.subject.includes(p))
      ? "systemerror"
      : undefined;
  // The original is quoted with three spaces before every line.
  const original = quoted?.replace(/^ {3}/gm, "").replace(/^From \S+ .*\n/, "");
  return reportOf(reason === undefined ? found : found.map((f) => ({ ...f, reason })), original, message, REASONS);
}

export const fmlReader: BounceReader = { name: "fml", read };
