import { describe, expect, it } from "vitest";
import { metricsSettings } from "../../cli/metrics-settings.js";

describe("FLAGPOST_METRICS_PUBLIC", () => {
  it("is false unless set to true, and refuses anything but true or false", () => {
    expect(metricsSettings({})).toEqual({ public: false });
    expect(metricsSettings({ FLAGPOST_METRICS_PUBLIC: "" })).toEqual({ public: false });
    expect(metricsSettings({ FLAGPOST_METRICS_PUBLIC: " TRUE " })).toEqual({ public: true });
    expect(metricsSettings({ FLAGPOST_METRICS_PUBLIC: "false" })).toEqual({ public: false });
    expect(() => metricsSettings({ FLAGPOST_METRICS_PUBLIC: "yes" })).toThrow(/must be true or false, not "yes"/);
  });
});
