import nodemailer from "nodemailer";
import { describe, expect, it } from "vitest";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { signMessage } from "../../adapters/nodemailer/signing-place.js";
import { signingThreads, signInThread } from "../../adapters/nodemailer/signing-threads.js";
import type { OutgoingMessage } from "../../src/ports/transport.js";
import { DOMAIN, dkim, verdict } from "./support/dkim-fixture.js";

/**
 * The signing threads (adapters/nodemailer/signing-threads.ts): none start until something is
 * signed; many messages at once come back each signed, whole and its own; a message that cannot
 * be signed fails alone; a thread that stops fails what it held, clearly, and is replaced.
 * With signingThreads 0 none starts at all. The cases run in order: the first two need a process
 * that has signed nothing yet.
 */

/** A message in two chunks, the way a stream hands it over, with `i` in its subject and body. */
function chunks(i: number, from = `From: ann@${DOMAIN}\r\n`): Buffer[] {
  return [
    Buffer.from(`${from}To: bob@example.org\r\nSubject: number ${i}\r\n`),
    Buffer.from(`\r\nThis is message ${i}.\r\n${"Some more text. ".repeat(i % 7)}\r\n`),
  ];
}

function message(id: string, signing: OutgoingMessage["dkim"] | null): OutgoingMessage {
  return {
    id,
    messageId: `<${id}@${DOMAIN}>`,
    date: new Date(),
    from: { address: `ann@${DOMAIN}`, domain: DOMAIN },
    to: [{ address: "bob@example.org", domain: "example.org" }],
    cc: [],
    bcc: [],
    replyTo: [],
    recipients: ["bob@example.org"],
    subject: "Hello",
    headers: {},
    text: "Hi\n",
    attachments: [],
    ...(signing ? { dkim: signing } : {}),
  };
}

describe("DKIM signing threads", () => {
  it("start none with signingThreads 0: the message is signed on the loop and libuv's pool", async () => {
    const transport = nodemailerTransport(nodemailer.createTransport({ streamTransport: true, buffer: true }), {
      signingThreads: 0,
    });
    await transport.send(message("e0", dkim));
    const signed = Buffer.concat(await signMessage(chunks(0), dkim, 0));
    expect(await verdict(signed)).toBe("pass");
    expect(signingThreads()).toHaveLength(0);
  });

  it("start none while nothing is signed, then one for the first signed message", async () => {
    const transport = nodemailerTransport(nodemailer.createTransport({ streamTransport: true, buffer: true }), {
      signingThreads: 1,
    });
    await transport.send(message("e1", null));
    expect(signingThreads()).toHaveLength(0);
    await transport.send(message("e2", dkim));
    expect(signingThreads()).toHaveLength(1);
  });

  it("give back every message of a burst signed, whole and its own; one that cannot be signed fails alone", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => signInThread(chunks(i, i === 13 ? "" : undefined), dkim, 1)),
    );
    expect(results[13]).toMatchObject({ status: "rejected", reason: { message: expect.stringContaining("From") } });
    for (const [i, result] of results.entries()) {
      if (i === 13) continue;
      expect(result.status).toBe("fulfilled");
      const signed = (result as PromiseFulfilledResult<Buffer>).value;
      const original = Buffer.concat(chunks(i));
      expect(signed.subarray(signed.length - original.length).equals(original)).toBe(true);
      expect(signed.toString("latin1")).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256;/);
      expect(await verdict(signed)).toBe("pass");
    }
  });

  it("fail the signatures a stopped thread held, naming it, and replace it for the next", async () => {
    await signInThread(chunks(1), dkim, 1);
    const [first] = signingThreads();
    // 24 MiB of body: the thread is still canonicalizing it when terminate() lands (a small
    // message could be signed and answered first, and the case would race).
    const held = signInThread(
      [chunks(2)[0]!, Buffer.from("A line of body text to canonicalize.\r\n".repeat(640 * 1024))],
      dkim,
      1,
    );
    await first!.terminate();
    await expect(held).rejects.toThrow(/DKIM signing thread stopped/);
    expect(signingThreads()).not.toContain(first);
    const next = await signInThread(chunks(3), dkim, 1);
    expect(await verdict(next)).toBe("pass");
    expect(signingThreads()).toHaveLength(1);
    expect(signingThreads()[0]).not.toBe(first);
  });
});
