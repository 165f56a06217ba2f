import { describe, expect, it } from "vitest";
import { providerMessageIdOf } from "../../adapters/nodemailer/provider-id.js";

const OWN = "<0197aaaa-0000-7000-8000-000000000001@acme.example>";

describe("the next hop's id for a message", () => {
  it.each([
    ["Postfix", "250 2.0.0 Ok: queued as 4F1A2B3C4D", "4F1A2B3C4D"],
    ["Exim", "250 OK id=1uQ2cD-000ABC-1x", "1uQ2cD-000ABC-1x"],
    [
      "SES (SMTP interface)",
      "250 Ok 0100018f0a1b2c3d-0a1b2c3d-1111-2222-3333-444455556666-000000",
      "0100018f0a1b2c3d-0a1b2c3d-1111-2222-3333-444455556666-000000",
    ],
  ])("is read from %s's reply", (_server, reply, id) => {
    expect(providerMessageIdOf(OWN, OWN, reply)).toBe(id);
  });

  it("is what a provider transporter returned when it is not flagpost's own Message-ID", () => {
    expect(providerMessageIdOf(OWN, "<0100018f-ses-api-id@email.amazonses.com>", "250 Ok")).toBe(
      "0100018f-ses-api-id@email.amazonses.com",
    );
  });

  it("is not flagpost's own Message-ID returned in another form (read with the one normalMessageId)", () => {
    expect(providerMessageIdOf(OWN, OWN.slice(1, -1), "250 Ok")).toBeUndefined();
    expect(providerMessageIdOf(OWN, ` ${OWN} `, "250 Ok")).toBeUndefined();
    expect(providerMessageIdOf(OWN, "0100018f-ses-api-id", "250 Ok")).toBe("0100018f-ses-api-id");
  });

  it("is absent when the reply names none", () => {
    expect(providerMessageIdOf(OWN, OWN, "250 OK: message queued")).toBeUndefined();
    expect(providerMessageIdOf(OWN, undefined, undefined)).toBeUndefined();
    expect(providerMessageIdOf(OWN, OWN, `250 ${"x".repeat(5000)} queued as ABCDEFG`)).toBeUndefined();
  });
});
