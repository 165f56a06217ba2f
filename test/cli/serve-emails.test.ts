import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { simpleParser } from "mailparser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli, spawnCli, waitForOutput } from "../support/cli.js";

const API_KEY = "serve-emails-test-key-0123456789";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flagpost-cli-mail-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("flagpost serve: email", () => {
  it("without FLAGPOST_SMTP_URL writes each email as an .eml file, logs where, and reports it delivered", async () => {
    const outbox = join(dir, "outbox");
    const child = spawnCli(["serve"], {
      FLAGPOST_DB: join(dir, "flagpost.db"),
      PORT: "0",
      FLAGPOST_API_KEY: API_KEY,
      FLAGPOST_OUTBOX_DIR: outbox,
      FLAGPOST_SMTP_URL: "",
    });
    let logged = "";
    child.stdout!.on("data", (d: Buffer) => (logged += d.toString()));
    const output = await waitForOutput(child, /"msg":"listening"/);
    expect(output).toContain('"msg":"mail transport","transport":"eml-file"');
    const url = (JSON.parse(output.split("\n").find((l) => l.includes('"msg":"listening"'))!) as { url: string }).url;

    const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    const res = await fetch(`${url}/v1/emails`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        from: "Dev <dev@example.com>",
        to: "you@example.org",
        bcc: "audit@example.org",
        subject: "Local",
        html: "<p>look</p>",
      }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };

    let status = "queued";
    for (let round = 0; status === "queued" && round < 200; round += 1) {
      status = ((await (await fetch(`${url}/v1/emails/${id}`, { headers })).json()) as { status: string }).status;
      if (status === "queued") await delay(25); // the worker is woken by the send; this waits for its write
    }
    expect(status).toBe("delivered");

    const file = join(outbox, `${id}.eml`);
    const mail = await simpleParser(await readFile(file));
    expect(mail.subject).toBe("Local");
    expect(mail.messageId).toBe(`<${id}@example.com>`);
    expect(mail.headers.has("bcc")).toBe(false);
    const line = logged.split("\n").find((l) => l.includes('"msg":"email written"'));
    expect(JSON.parse(line!)).toMatchObject({ id, file, envelope_to: ["you@example.org", "audit@example.org"] });

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  });

  it("refuses a FLAGPOST_SMTP_URL that is not smtp:// or smtps://", async () => {
    const run = await runCli(["serve"], {
      FLAGPOST_DB: join(dir, "flagpost.db"),
      PORT: "0",
      FLAGPOST_SMTP_URL: "http://mail.example.com",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('FLAGPOST_SMTP_URL must start with smtp:// or smtps://, not "http"');
  });
});
