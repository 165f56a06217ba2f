import { readFile } from "node:fs/promises";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { type InboundSmtp, mailReportParser, startInboundSmtp } from "../../adapters/inbound/index.js";
import type { DeliveryReport } from "../../src/emails/index.js";
import type { ReportParser } from "../../src/ports/report-parser.js";

/**
 * The inbound listener over real SMTP (nodemailer as the sending MTA, 127.0.0.1): what it takes,
 * what it refuses, and that it hands every accepted message on with its envelope recipients.
 */
const ID = "0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a70";
const VERP = `bounces+${ID}@bounce.acme.example`;
const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url));

let listener: InboundSmtp | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

function send(port: number, to: string, raw: Buffer | string) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true });
  return transport.sendMail({ envelope: { from: "", to }, raw }).finally(() => transport.close());
}

async function refusal(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as { responseCode?: number }).responseCode;
  }
}

describe("inbound SMTP listener", () => {
  it("accepts a DSN, hands it on with its envelope recipient, and the parser finds the VERP id there", async () => {
    const reports: DeliveryReport[] = [];
    const parser = mailReportParser();
    listener = await startInboundSmtp({
      domains: ["bounce.acme.example"],
      ingest: async (raw) => void reports.push(...(await parser.parse(raw))),
    });
    // The RFC's example carries no VERP address in its headers: only the envelope names the email.
    const info = await send(listener.port, VERP, await fixture("rfc3464-simple.eml"));
    expect(info.accepted).toEqual([VERP]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ type: "bounced", emailId: ID, recipient: "louis@dialup.example.net" });
  });

  it("parses each message with the parser it is given and hands on reports, not bytes", async () => {
    // A parser for a made-up one-line format: the wiring, not the parsing, is under test here.
    const parser: ReportParser = {
      async parse(raw) {
        const text = typeof raw === "string" ? raw : Buffer.from(raw).toString("utf8");
        const match = /^X-Test-Report: (.*)$/m.exec(text);
        return match ? [JSON.parse(match[1]!) as DeliveryReport] : [];
      },
    };
    const applied: DeliveryReport[][] = [];
    listener = await startInboundSmtp({ parser, apply: async (reports) => void applied.push(reports) });
    const report = { type: "bounced", source: "dsn", emailId: ID, status: "5.1.1" };
    await send(listener.port, VERP, `Subject: report\r\nX-Test-Report: ${JSON.stringify(report)}\r\n\r\nx\r\n`);
    await send(listener.port, VERP, "Subject: hello\r\n\r\nnot a report\r\n");
    expect(applied).toEqual([[report], []]);
  });

  it("reads DSNs with mailReportParser when it is given no parser", async () => {
    const applied: DeliveryReport[] = [];
    listener = await startInboundSmtp({ apply: async (reports) => void applied.push(...reports) });
    await send(listener.port, VERP, await fixture("rfc3464-simple.eml"));
    expect(applied).toMatchObject([{ type: "bounced", source: "dsn", emailId: ID }]);
  });

  it("answers 250 to a message that reports nothing", async () => {
    const received: Buffer[] = [];
    listener = await startInboundSmtp({ ingest: async (raw) => void received.push(raw) });
    const info = await send(listener.port, VERP, "Subject: out of office\r\n\r\nBack on Monday.\r\n");
    expect(info.response).toMatch(/^250/);
    expect(received[0]!.toString()).toBe(`Delivered-To: ${VERP}\r\nSubject: out of office\r\n\r\nBack on Monday.\r\n`);
  });

  it("relays nothing: a recipient outside its domains is refused with 550 and nothing is taken", async () => {
    const received: Buffer[] = [];
    listener = await startInboundSmtp({
      domains: ["bounce.acme.example"],
      ingest: async (raw) => void received.push(raw),
    });
    expect(await refusal(send(listener.port, "someone@example.org", "Subject: x\r\n\r\nx\r\n"))).toBe(550);
    expect(received).toEqual([]);
  });

  it("refuses a message over its size limit with 552", async () => {
    const received: Buffer[] = [];
    listener = await startInboundSmtp({ maxBytes: 4096, ingest: async (raw) => void received.push(raw) });
    const big = `Subject: big\r\n\r\n${"x".repeat(70).concat("\r\n").repeat(100)}`;
    expect(await refusal(send(listener.port, VERP, big))).toBe(552);
    expect(received).toEqual([]);
  });

  it("answers 451 when the report cannot be stored, so the sender tries again", async () => {
    listener = await startInboundSmtp({ ingest: () => Promise.reject(new Error("storage down")) });
    expect(await refusal(send(listener.port, VERP, "Subject: x\r\n\r\nx\r\n"))).toBe(451);
  });

  it("waits on close for a message still being ingested", async () => {
    let release!: () => void;
    let stored = false;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    listener = await startInboundSmtp({
      ingest: async () => {
        arrived();
        await gate;
        stored = true;
      },
    });
    const sending = send(listener.port, VERP, "Subject: x\r\n\r\nx\r\n");
    await arrival;
    const closing = listener.close();
    listener = undefined;
    let closed = false;
    void closing.then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(stored).toBe(true);
    await sending;
  });
});
