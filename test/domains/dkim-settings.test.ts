import { describe, expect, it } from "vitest";
import { domainSettingsFrom } from "../../cli/domain-settings.js";

describe("FLAGPOST_REQUIRE_VERIFIED_DOMAIN", () => {
  it("sets domains.requireVerified from true or false, and refuses anything else", () => {
    expect(domainSettingsFrom({}).requireVerified).toBeUndefined();
    expect(domainSettingsFrom({ FLAGPOST_REQUIRE_VERIFIED_DOMAIN: " TRUE " }).requireVerified).toBe(true);
    expect(domainSettingsFrom({ FLAGPOST_REQUIRE_VERIFIED_DOMAIN: "false" }).requireVerified).toBe(false);
    expect(() => domainSettingsFrom({ FLAGPOST_REQUIRE_VERIFIED_DOMAIN: "yes" })).toThrow(
      /must be true or false, not "yes"/,
    );
  });
});
