import { expect, it } from "vitest";
import { reportSettingsFrom } from "../../cli/report-settings.js";

it("reads FLAGPOST_SOFT_BOUNCE_SUPPRESSION as count/days and FLAGPOST_SECRET_KEY, off when unset", () => {
  expect(reportSettingsFrom({})).toEqual({});
  expect(
    reportSettingsFrom({ FLAGPOST_SOFT_BOUNCE_SUPPRESSION: " 3/7 ", FLAGPOST_SECRET_KEY: "k".repeat(32) }),
  ).toEqual({
    suppression: { softBounces: { count: 3, days: 7 } },
    secretKey: "k".repeat(32),
  });
  expect(reportSettingsFrom({ FLAGPOST_SOFT_BOUNCE_SUPPRESSION: "2/0.5" })).toEqual({
    suppression: { softBounces: { count: 2, days: 0.5 } },
  });
});

it("refuses a soft-bounce setting or a secret it cannot use, naming the variable", () => {
  for (const value of ["3", "3/", "/7", "0/7", "1.5/7", "3/0", "3/400", "3/7/1", "three/seven"])
    expect(() => reportSettingsFrom({ FLAGPOST_SOFT_BOUNCE_SUPPRESSION: value })).toThrow(
      /^FLAGPOST_SOFT_BOUNCE_SUPPRESSION must be "count\/days"/,
    );
  expect(() => reportSettingsFrom({ FLAGPOST_SECRET_KEY: "short" })).toThrow(/FLAGPOST_SECRET_KEY must be at least 16/);
});

it("reads FLAGPOST_PUBLIC_URL, the base of unsubscribe links, and refuses one that is no http(s) URL", () => {
  expect(reportSettingsFrom({ FLAGPOST_PUBLIC_URL: " https://mail.example.com/flagpost " })).toEqual({
    publicUrl: "https://mail.example.com/flagpost",
  });
  for (const value of ["mail.example.com", "ftp://mail.example.com", "https://mail.example.com/?a=1", "https://a b"])
    expect(() => reportSettingsFrom({ FLAGPOST_PUBLIC_URL: value })).toThrow(
      /^FLAGPOST_PUBLIC_URL must be an http\(s\) URL/,
    );
});
