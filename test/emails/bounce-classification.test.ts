import { describe, expect, it } from "vitest";
import { BOUNCE_REASONS } from "../../src/emails/reports.js";
import {
  classifyRecipient,
  isRecipientCaused,
  providerBounce,
  type RecipientFacts,
  SENDER_SIDE_REASONS,
  smtpCommandFor,
} from "../../src/emails/index.js";

import { CASES, failed } from "./support/bounce-phrasings.js";

/**
 * classifyRecipient against what real servers write: one or more phrasings per reason
 * (support/bounce-phrasings.ts), the status refinement, and hard or soft per reason as Sisimai
 * decides it.
 */
describe("classifyRecipient: a reason for what real servers say", () => {
  it.each(CASES)("%s → %s", (_label, facts, reason, type, subType) => {
    const classified = classifyRecipient(facts);
    expect(classified.reason).toBe(reason);
    if (type !== undefined) expect(classified.type).toBe(type);
    if (subType !== undefined) expect(classified.subType).toBe(subType);
  });
});

describe("classifyRecipient: the status, reply code and command", () => {
  it("takes the words' status when the report's is missing, x.0.0, or of the reply's other class", () => {
    expect(classifyRecipient(failed(undefined, "550 5.1.1 user unknown")).status).toBe("5.1.1");
    expect(classifyRecipient(failed("5.0.0", "552 5.2.2 mailbox full")).status).toBe("5.2.2");
    expect(classifyRecipient(failed("4.5.0", "550 5.5.0 Service refused")).status).toBe("5.5.0");
    // No enhanced code anywhere: the reply's class, as Postfix writes it.
    expect(classifyRecipient(failed(undefined, "550 Unknown user ann@example.org")).status).toBe("5.0.0");
    expect(classifyRecipient(failed(undefined, "connection timed out")).status).toBeUndefined();
    expect(classifyRecipient(failed("4.4.7", "450 4.7.1 Client host rejected")).status).toBe("4.7.1");
    // A precise given status stands beside a vaguer quoted one.
    expect(classifyRecipient(failed("5.1.1", "550 5.0.0 unknown user")).status).toBe("5.1.1");
    const blacklisted = classifyRecipient(failed("5.1.1", "550 5.7.1 IP address blacklisted by recipient"));
    expect([blacklisted.status, blacklisted.reason, blacklisted.type]).toEqual(["5.7.1", "blocked", "Transient"]);
  });

  it("reads the reply code, ignoring IP addresses and version numbers", () => {
    expect(classifyRecipient(failed("5.1.1", "550-5.1.1 The email account")).replyCode).toBe("550");
    expect(
      classifyRecipient(failed("4.4.1", "connect to 192.0.2.250[192.0.2.250]:25: timed out")).replyCode,
    ).toBeUndefined();
    expect(classifyRecipient(failed("5.0.0", "command died with status 255")).replyCode).toBeUndefined();
  });

  it("finds the refused command in the words and in the notification around a recipient", () => {
    expect(classifyRecipient(failed("5.0.0", "550 unknown user (in reply to RCPT TO command)")).command).toBe("RCPT");
    const postfix = [
      "<ann@example.org>: host mx.example.org[192.0.2.4] said: 550 5.7.1 Access denied (in reply",
      "    to MAIL FROM command)",
      "",
      "<bob@example.org>: host mx.example.org[192.0.2.4] said: 552 5.2.2 Over quota (in reply to",
      "    end of DATA command)",
    ].join("\n");
    expect(smtpCommandFor(postfix, "ann@example.org")).toBe("MAIL");
    expect(smtpCommandFor(postfix, "bob@example.org")).toBe("DATA");
    expect(smtpCommandFor("SMTP error from remote mail server after RCPT TO:<x@example.org>:", undefined)).toBe("RCPT");
    const transcript = ">>> MAIL From:<a@example.com>\n<<< 250 OK\n>>> DATA\n<<< 554 5.7.1 rejected";
    expect(smtpCommandFor(transcript, "nobody@example.org")).toBe("DATA");
  });
});

describe("classifyRecipient: a reader's own reason", () => {
  it("keeps a firm reason, and lets the words overrule a tentative one", () => {
    expect(classifyRecipient(failed("5.1.1", "550 user unknown", { reason: "mailboxfull" })).reason).toBe(
      "mailboxfull",
    );
    expect(classifyRecipient(failed(undefined, "mailbox is full", { reason: "userunknown" })).reason).toBe(
      "mailboxfull",
    );
    expect(classifyRecipient(failed(undefined, "550 Rejected", { reason: "userunknown" })).reason).toBe("userunknown");
  });
});

describe("hard or soft by reason", () => {
  const PERMANENT = new Set(["userunknown", "hostunknown", "hasmoved", "notaccept"]);
  const REASONS = BOUNCE_REASONS.filter((r) => !["feedback", "vacation", "delivered"].includes(r));

  it.each(REASONS)("%s", (reason) => {
    const { type } = classifyRecipient(failed("5.0.0", "550 refused", { reason }));
    expect(type).toBe(reason === "undefined" ? "Undetermined" : PERMANENT.has(reason) ? "Permanent" : "Transient");
  });

  it("never marks a sender-side reason Permanent, whatever its class, and never counts it against the address", () => {
    for (const reason of SENDER_SIDE_REASONS) {
      expect(classifyRecipient(failed("5.7.1", "554 5.7.1 refused", { reason })).type).toBe("Transient");
      expect(isRecipientCaused(reason)).toBe(false);
    }
    for (const reason of ["userunknown", "mailboxfull", "suspend", "expired", "undefined"] as const)
      expect(isRecipientCaused(reason)).toBe(true);
  });
});

describe("providerBounce", () => {
  const classified = (facts: RecipientFacts) => classifyRecipient(facts);

  it("classifies by the words, and takes the provider's verdict only where they name nothing", () => {
    const blocked = classified(failed("5.7.1", "554 5.7.1 Client host blocked using bl.spamcop.net"));
    expect(providerBounce(blocked, { type: "Permanent", subType: "General" }, "m")).toEqual({
      type: "Transient",
      subType: "General",
      reason: "blocked",
      message: "m",
    });
    const silent = classified({ action: "failed" });
    expect(providerBounce(silent, { type: "Permanent", subType: "NoEmail" }, "m").type).toBe("Permanent");
  });

  it("keeps the provider's suppression-list verdict", () => {
    const dropped = classified(failed(undefined, "Bounced Address"));
    expect(providerBounce(dropped, { type: "Permanent", subType: "Suppressed" }, "m")).toMatchObject({
      type: "Permanent",
      subType: "Suppressed",
    });
  });
});
