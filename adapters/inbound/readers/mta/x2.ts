import type { BounceMessage, BounceReader, ReaderResult } from "../reader.js";
import { angleBlocks, openNotice, reportOf } from "./common.js";

/**
 * The anonymous "X2" format Sisimai keeps (a webmail provider's MTA, qmail-like): "Unable to
 * deliver message to the following address(es).", then "<address>:" and the reason on the next
 * line, then "--- Original message follows.".
 */

const SUBJECTS = ["Delivery failure", "failure delivery", "failed delivery"];

function read(message: BounceMessage): ReaderResult | undefined {
  if (!message.from.includes("MAILER-DAEMON@") && !SUBJECTS.some((s) => message.subject.startsWith(s)))
    return undefined;
  const opened = openNotice(message, ["--- Original message follows."], (line) =>
    line.startsWith("Unable to deliver message to the following address"),
  );
  if (opened === undefined) return undefined;
  return reportOf(angleBlocks(opened.after), opened.quoted, message);
}

export const x2Reader: BounceReader = { name: "x2", read };
