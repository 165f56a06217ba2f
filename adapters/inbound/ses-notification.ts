import type { ParsedMail } from "mailparser";
import {
  clippedText,
  type DeliveryReport,
  emailIdFromVerp,
  isoTime,
  normalMessageId,
  normalRecipient,
  readFields,
} from "../../src/emails/index.js";
import { reportOf } from "./plain-bounce.js";
import type { ReportMessage } from "./report-parser.js";

/**
 * Amazon SES bounce, complaint and delivery notifications that reach flagpost as mail: SES's own JSON as the
 * body (an SNS topic's email-json subscription wraps it in the SNS envelope, whose `Message` holds
 * it as a string; a plain email subscription sends it bare). Bounces are classified from each
 * recipient's status and diagnostic, like every other bounce; complaints and deliveries are what they say.
 * The JSON is read defensively: anything not shaped like a notification gives nothing.
 */

const MAX_JSON = 512 * 1024;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject).slice(0, 1_000) : []);

/** The JSON object the text holds, trying the text as written and with mail's line folding undone. */
function jsonIn(text: string): Json | undefined {
  const open = text.indexOf("{");
  const close = text.lastIndexOf("}");
  if (open < 0 || close <= open || close - open > MAX_JSON) return undefined;
  const body = text.slice(open, close + 1);
  for (const candidate of [body, body.replace(/\r?\n /g, ""), body.replace(/\r?\n/g, "")]) {
    try {
      const value: unknown = JSON.parse(candidate);
      return isObject(value) ? value : undefined;
    } catch {
      // try the next unfolding
    }
  }
  return undefined;
}

/** SES's notification: the body itself, or the SNS envelope's `Message`. */
function notificationOf(text: string): Json | undefined {
  const outer = jsonIn(text);
  if (outer === undefined) return undefined;
  const inner = str(outer["Message"]);
  const notification = inner === undefined ? outer : jsonIn(inner);
  if (notification === undefined || !isObject(notification["mail"])) return undefined;
  return notification;
}

export function sesNotificationReports(mail: ParsedMail, message: ReportMessage): DeliveryReport[] {
  const body = mail.text ?? "";
  if (!body.trimStart().startsWith("{")) return [];
  const notification = notificationOf(body);
  if (notification === undefined) return [];
  const kind = str(notification["notificationType"]) ?? str(notification["eventType"]);
  const sent = notification["mail"] as Json;
  const headers = list(sent["headers"]);
  const common = isObject(sent["commonHeaders"]) ? sent["commonHeaders"] : {};
  const messageId =
    normalMessageId(str(common["messageId"])) ??
    normalMessageId(str(headers.find((h) => str(h["name"])?.toLowerCase() === "message-id")?.["value"]));
  const match = readFields({
    emailId: emailIdFromVerp(str(sent["source"])),
    messageId,
    providerMessageId: str(sent["messageId"]),
  });
  if (kind === "Bounce" && isObject(notification["bounce"])) {
    const bounce = notification["bounce"];
    const occurredAt = isoTime(str(bounce["timestamp"])) ?? isoTime(message.date);
    return list(bounce["bouncedRecipients"]).map((each) => ({
      ...reportOf(
        {
          recipient: str(each["emailAddress"]),
          ...readFields({ status: str(each["status"]), diagnostic: diagnosticOf(str(each["diagnosticCode"])) }),
        },
        { ...match, occurredAt },
      ),
      source: "ses",
    }));
  }
  if (kind === "Complaint" && isObject(notification["complaint"])) {
    const complaint = notification["complaint"];
    const occurredAt = isoTime(str(complaint["timestamp"])) ?? isoTime(message.date);
    const feedbackType = str(complaint["complaintFeedbackType"]) ?? "abuse";
    return list(complaint["complainedRecipients"]).map((each) => ({
      type: "complained",
      source: "ses",
      feedbackType,
      ...readFields({ recipient: normalRecipient(str(each["emailAddress"])), ...match, occurredAt }),
    }));
  }
  if (kind === "Delivery" && isObject(notification["delivery"])) {
    const delivery = notification["delivery"];
    const occurredAt = isoTime(str(delivery["timestamp"])) ?? isoTime(message.date);
    const diagnostic = clippedText(str(delivery["smtpResponse"]));
    const addresses = Array.isArray(delivery["recipients"]) ? delivery["recipients"].slice(0, 1_000) : [];
    return addresses.map((address: unknown) => ({
      type: "delivered",
      source: "ses",
      action: "delivered",
      reason: "delivered",
      ...readFields({ recipient: normalRecipient(str(address)), ...match, occurredAt, diagnostic }),
    }));
  }
  return [];
}

/** `smtp; 550 5.1.1 user unknown` → `550 5.1.1 user unknown`. */
function diagnosticOf(value: string | undefined): string | undefined {
  return value?.replace(/^[a-z-]+;\s*/i, "");
}
