import type { ReceivedMessage } from "../../support/smtp-sink.js";

/**
 * Reports about a message a test SMTP sink received, as a receiving MTA would write them: a DSN
 * (RFC 3464, Postfix's layout) for one recipient, or an ARF complaint (RFC 5965, Yahoo's
 * layout). Both return the original's header block, as real ones do.
 */
function headerBlock(raw: Buffer): string {
  const text = raw.toString("utf8");
  const end = text.indexOf("\r\n\r\n");
  return (end < 0 ? text : text.slice(0, end)).replace(/\r\n/g, "\n");
}

export interface DsnOptions {
  recipient: string;
  action: "failed" | "delayed" | "delivered";
  status: string;
  diagnostic: string;
}

export function dsnFor(message: ReceivedMessage, options: DsnOptions): string {
  const boundary = "4ZB9sQ1kLnz9sWq.1741684363/mx.example.org";
  const subject =
    options.action === "failed"
      ? "Undelivered Mail Returned to Sender"
      : options.action === "delayed"
        ? "Delayed Mail (still being retried)"
        : "Successful Mail Delivery Report";
  return [
    "From: MAILER-DAEMON@mx.example.org (Mail Delivery System)",
    `To: ${message.envelope.from}`,
    `Subject: ${subject}`,
    "Date: Tue, 11 Mar 2025 09:12:43 +0000",
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Description: Notification",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    `<${options.recipient}>: ${options.diagnostic}`,
    "",
    `--${boundary}`,
    "Content-Description: Delivery report",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example.org",
    `X-Postfix-Sender: rfc822; ${message.envelope.from}`,
    "",
    `Final-Recipient: rfc822; ${options.recipient}`,
    `Original-Recipient: rfc822;${options.recipient}`,
    `Action: ${options.action}`,
    `Status: ${options.status}`,
    `Diagnostic-Code: smtp; ${options.diagnostic}`,
    "",
    `--${boundary}`,
    "Content-Description: Undelivered Message Headers",
    "Content-Type: text/rfc822-headers",
    "",
    headerBlock(message.raw),
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

export function arfFor(message: ReceivedMessage, recipient: string): string {
  const boundary = "_----------=_1741976571837270";
  return [
    "From: Yahoo! Mail AntiSpam Feedback <feedback@arf.mail.example>",
    `To: fbl@bounce.acme.example`,
    "Subject: FW: complaint",
    "Date: Fri, 14 Mar 2025 11:22:51 -0700",
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type="feedback-report"; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=US-ASCII",
    "",
    "This is an email abuse report.",
    "",
    `--${boundary}`,
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: Yahoo!-Mail-Feedback/2.0",
    "Version: 0.1",
    `Original-Mail-From: <${message.envelope.from}>`,
    `Original-Rcpt-To: ${recipient}`,
    "",
    `--${boundary}`,
    "Content-Type: message/rfc822",
    "Content-Disposition: inline",
    "",
    message.raw.toString("utf8").replace(/\r\n/g, "\n"),
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}
