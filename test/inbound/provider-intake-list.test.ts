import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../../adapters/http/index.js";
import { PROVIDER_INTAKES, type ProviderIntake } from "../../adapters/inbound/providers/index.js";
import { USAGE } from "../../cli/args.js";
import { inboundSourcesFrom } from "../../cli/inbound-settings.js";
import { createFlagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import type { ReportSource } from "../../src/ports/report-source.js";
import { silentLogger } from "../../src/ports/logger.js";

/**
 * `flagpost serve` knows its providers only through the list of intakes: a provider added to the
 * list, here from this file alone, is built from its settings, served at `/v1/inbound/{name}` and
 * moves an email; `flagpost --help` names the built-in providers' settings from the same list.
 */
const acmeIntake: ProviderIntake = {
  name: "acme",
  settings: ["FLAGPOST_INBOUND_ACME_TOKEN"],
  fromSettings(setting) {
    const token = setting("FLAGPOST_INBOUND_ACME_TOKEN");
    return token === undefined ? undefined : acmeSource(token);
  },
};

function acmeSource(token: string): ReportSource {
  return {
    name: "acme",
    async receive(request) {
      const given = request.headers["x-acme-token"];
      if (given === undefined) throw new FlagpostError("missing_signature", "The request carries no Acme token");
      if (given !== token) throw new FlagpostError("invalid_signature", "The Acme token does not match");
      const { email_id } = JSON.parse(Buffer.from(request.body).toString("utf8")) as { email_id: string };
      return [{ type: "bounced", source: "acme", emailId: email_id, recipient: "jane@example.com" }];
    },
  };
}

describe("the list of provider intakes", () => {
  it("builds, serves and applies a provider added to it from outside flagpost", async () => {
    const intakes = [...PROVIDER_INTAKES, acmeIntake];
    expect(inboundSourcesFrom({}, intakes)).toEqual([]);
    const sources = inboundSourcesFrom({ FLAGPOST_INBOUND_ACME_TOKEN: " t0ken " }, intakes);
    expect(sources.map((s) => s.name)).toEqual(["acme"]);

    const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
    try {
      await fp.ready();
      const { id } = await fp.emails.send({ from: "a@acme.example", to: "jane@example.com", subject: "s", text: "t" });
      const at = Date.now();
      await fp.storage.emails.transitionEmail(id, {
        from: ["queued"],
        to: "sent",
        sentAt: at,
        event: { type: "sent", at, detail: { accepted: ["jane@example.com"] } },
      });
      const handler = toFetchHandler(fp, { rateLimit: false, inbound: sources });
      const post = (headers: Record<string, string>) =>
        handler(
          new Request("http://flagpost.test/v1/inbound/acme", {
            method: "POST",
            headers,
            body: JSON.stringify({ email_id: id }),
          }),
        );
      expect((await post({})).status).toBe(401);
      expect((await post({ "x-acme-token": "wrong" })).status).toBe(403);
      expect((await fp.emails.get(id)).status).toBe("sent");
      const answer = await post({ "x-acme-token": "t0ken" });
      expect(await answer.json()).toEqual({ data: { received: 1, outcomes: { applied: 1 } } });
      expect((await fp.emails.get(id)).status).toBe("bounced");
    } finally {
      await fp.close();
    }
  });

  it("refuses a setting an intake reads without listing it, since the help would not name it", () => {
    const sloppy: ProviderIntake = { ...acmeIntake, settings: [] };
    expect(() => inboundSourcesFrom({ FLAGPOST_INBOUND_ACME_TOKEN: "t" }, [sloppy])).toThrow(
      "The acme intake reads FLAGPOST_INBOUND_ACME_TOKEN without listing it",
    );
  });

  it("is where flagpost --help takes the providers' settings and paths from", () => {
    for (const intake of PROVIDER_INTAKES) for (const name of intake.settings) expect(USAGE).toContain(name);
    expect(USAGE).toContain("enable POST /v1/inbound/{ses,sendgrid,mailgun,postmark} (docs/emails.md)");
    const settingLines = USAGE.split("\n").filter((line) => /FLAGPOST_INBOUND_(?!SMTP)/.test(line));
    expect(settingLines.length).toBeGreaterThan(1);
    for (const line of settingLines) expect(line.length).toBeLessThanOrEqual(80);
  });
});
