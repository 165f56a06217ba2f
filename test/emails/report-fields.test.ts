import { describe, expect, it } from "vitest";
import {
  clippedText,
  emailIdFromVerp,
  enhancedStatus,
  isoTime,
  normalMessageId,
  normalRecipient,
} from "../../src/emails/index.js";

const ID = "0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a71";

describe("report fields shared by every report source", () => {
  it("reads the email id of a VERP address, and nothing else", () => {
    expect(emailIdFromVerp(`bounces+${ID}@bounce.acme.example`)).toBe(ID);
    expect(emailIdFromVerp(`<bounces+${ID}@bounce.acme.example>`)).toBe(ID);
    expect(emailIdFromVerp(`Bounces <BOUNCES+${ID.toUpperCase()}@Bounce.Acme.Example>`)).toBe(ID);
    expect(emailIdFromVerp(`rfc822; bounces+${ID}@bounce.acme.example`)).toBe(ID);
    expect(emailIdFromVerp(`notbounces+${ID}@bounce.acme.example`)).toBeUndefined();
    expect(emailIdFromVerp(`bounces+${ID}x@bounce.acme.example`)).toBeUndefined();
    expect(emailIdFromVerp(`bounces+${ID}`)).toBeUndefined();
    expect(emailIdFromVerp("hello@acme.example")).toBeUndefined();
    expect(emailIdFromVerp(undefined)).toBeUndefined();
  });

  it("normalises recipients and refuses what is no address", () => {
    expect(normalRecipient("rfc822; Ann@Example.org")).toBe("ann@example.org");
    expect(normalRecipient("rfc822;<ann@example.org>")).toBe("ann@example.org");
    expect(normalRecipient("Ann <ann@example.org>")).toBe("ann@example.org");
    expect(normalRecipient("utf-8; ann@example.org")).toBe("ann@example.org");
    expect(normalRecipient("rfc822;/var/spool/mail/ann")).toBeUndefined();
    expect(normalRecipient("rfc822;|procmail")).toBeUndefined();
    expect(normalRecipient("two words@example.org")).toBeUndefined();
    expect(normalRecipient("")).toBeUndefined();
  });

  it("keeps Message-IDs with their angle brackets", () => {
    expect(normalMessageId("abc@example.org")).toBe("<abc@example.org>");
    expect(normalMessageId(" <abc@example.org> ")).toBe("<abc@example.org>");
    expect(normalMessageId("<>")).toBeUndefined();
    expect(normalMessageId("a b@example.org")).toBeUndefined();
  });

  it("finds enhanced status codes", () => {
    expect(enhancedStatus("5.0.0 (permanent failure)")).toBe("5.0.0");
    expect(enhancedStatus("550-5.1.1 The email account")).toBe("5.1.1");
    expect(enhancedStatus("250 OK")).toBeUndefined();
  });

  it("clips the remote server's words to one line of at most 1 KiB, and reads dates as UTC", () => {
    expect(clippedText("  a\n   b  ")).toBe("a b");
    expect(clippedText("x".repeat(5000))!.length).toBe(1024);
    expect(isoTime("Tue, 11 Mar 2025 09:12:43 +0100")).toBe("2025-03-11T08:12:43.000Z");
    expect(isoTime(1741684363)).toBe("2025-03-11T09:12:43.000Z");
    expect(isoTime("not a date")).toBeUndefined();
  });
});
