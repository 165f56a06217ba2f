/**
 * An ARF complaint (RFC 5965) as a mailbox provider's feedback loop sends it: the message the
 * user marked as spam, exactly as it sits in their mailbox (with the Return-Path and Received
 * lines the MTA added), attached whole to a `multipart/report; report-type=feedback-report`,
 * mailed to the sender's registered feedback address rather than to the return path.
 */

/** The first message of an mbox file, without its "From " separator line, CRLF line ends. */
export function firstMessageOf(mbox: string): string {
  const lines = mbox.split(/\r?\n/);
  if (!lines[0]?.startsWith("From ")) throw new Error("the mailbox does not start with an mbox separator");
  const end = lines.findIndex((line, i) => i > 0 && line.startsWith("From "));
  return lines.slice(1, end === -1 ? undefined : end).join("\r\n");
}

/** The value of a header field of `message` (first occurrence, unfolded), or undefined. */
export function headerOf(message: string, name: string): string | undefined {
  const head = message.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const prefix = `${name.toLowerCase()}:`;
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(prefix));
  return line?.slice(prefix.length).trim();
}

export function feedbackReport(options: { original: string; recipient: string; to: string; date: Date }): string {
  const boundary = "----=_feedback_report_0001";
  const date = options.date.toUTCString().replace("GMT", "+0000");
  const returnPath = headerOf(options.original, "return-path") ?? "<>";
  return [
    "From: Mail Provider Feedback Loop <fbl@feedback.mail.test>",
    `To: <${options.to}>`,
    "Subject: FW: complaint about a message from sender.test",
    `Date: ${date}`,
    "Message-ID: <fbl-0001@feedback.mail.test>",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    "",
    "This is a multi-part message in MIME format.",
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is an email abuse report for an email message received from IP 127.0.0.1.",
    "A user of mail.test marked it as spam.",
    "",
    `--${boundary}`,
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: MailTestFBL/1.0",
    "Version: 1",
    `Original-Mail-From: ${returnPath}`,
    `Original-Rcpt-To: <${options.recipient}>`,
    `Arrival-Date: ${date}`,
    "Source-IP: 127.0.0.1",
    "Reported-Domain: sender.test",
    "",
    `--${boundary}`,
    "Content-Type: message/rfc822",
    "Content-Disposition: inline",
    "",
    options.original,
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}
