import { request } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { expect } from "vitest";
import { API_KEY, isRunning, type Served } from "./serve.js";

/**
 * Clients that POST large emails to a `flagpost serve` child: the memory suite's 24 × 39 MiB and
 * large-email-intake.test.ts's few.
 */

/** A JSON email of exactly `bytes` bytes: one attachment fills it. */
export function largeEmail(bytes: number, index: number): Buffer {
  const head = JSON.stringify({
    from: "Big <big@example.com>",
    to: `large${index}@example.org`,
    subject: `Large ${index}`,
    text: "see attachment",
    attachments: [{ filename: "blob.bin", content: "" }],
    // Sent tomorrow: this test measures taking the bodies in, not the outbox (see the note above).
    scheduled_at: new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString(),
  });
  const room = bytes - head.length;
  const content = "A".repeat(room - (room % 4)); // valid base64 of zero bytes, 3 bytes per 4 characters
  return Buffer.from(head.replace('"content":""', `"content":"${content}"`));
}

/**
 * POST with node:http. A 503 comes before the body is read; Node's server then closes the
 * connection rather than read 39 MiB it will not use, so a client still uploading may see the
 * reset before the answer: status 0, as a client would retry it.
 */
function post(url: string, body: Buffer): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/emails`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${API_KEY}`,
          "content-type": "application/json",
          "content-length": body.length,
        },
      },
      (res) => {
        res.on("error", () => undefined); // the reset after a 503: the answer is already in hand
        res.resume();
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            ...(res.headers["retry-after"] && { retryAfter: res.headers["retry-after"] }),
          }),
        );
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve({ status: 0 }) : reject(error),
    );
    req.end(body);
  });
}

/** Sends one email until it is accepted: after each 503 (or reset) it waits the Retry-After second. */
export async function sendUntilAccepted(
  server: Served,
  body: Buffer,
  counts: { refused: number; resets: number; timeouts: number },
) {
  for (;;) {
    const { status, retryAfter } = await post(server.url, body);
    if (status !== 503 && status !== 0 && status !== 408) return status;
    expect(isRunning(server), "the server is alive").toBe(true);
    if (status === 503) expect(retryAfter).toBe("1");
    else if (status === 408) counts.timeouts += 1;
    else counts.resets += 1;
    counts.refused += 1;
    await delay(1_000);
  }
}
