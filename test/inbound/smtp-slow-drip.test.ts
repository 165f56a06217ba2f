import { readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import nodemailer from "nodemailer";
import { afterEach, describe, expect, it } from "vitest";
import { type InboundSmtp, startInboundSmtp } from "../../adapters/inbound/index.js";

/**
 * Slow clients over real sockets on the loopback network: a session that trickles a byte at a
 * time is closed at its whole-session deadline however busy it looks, and one client address
 * cannot hold more than its share of the slots, so a real DSN from elsewhere still gets in.
 * (Linux answers on all of 127.0.0.0/8, so 127.0.0.2 plays a second client host.)
 */
const ID = "0192b3c4-d5e6-7f80-9a1b-2c3d4e5f6a70";
const VERP = `bounces+${ID}@bounce.acme.example`;

let listener: InboundSmtp | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await listener?.close();
  listener = undefined;
});

interface Dripper {
  /** Everything the server said. */
  readonly said: () => string;
  /** Resolves with the time (ms after connecting) the server closed the connection. */
  readonly closed: Promise<number>;
  /** Resolves with the first reply line. */
  readonly greeting: Promise<string>;
}

/** A client that, once greeted, sends one byte of a command every `everyMs` and never finishes the line. */
function drip(port: number, localAddress = "127.0.0.1", everyMs = 200): Dripper {
  const started = Date.now();
  const socket = connect({ host: "127.0.0.1", port, localAddress });
  sockets.push(socket);
  let said = "";
  let timer: NodeJS.Timeout | undefined;
  const greeting = new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      said += chunk.toString("latin1");
      if (said.includes("\r\n")) resolve(said.split("\r\n", 1)[0]!);
      if (timer === undefined && said.startsWith("220")) {
        const bytes = "EHLO slow.example.org";
        let at = 0;
        timer = setInterval(() => socket.write(bytes[at++ % bytes.length]!), everyMs);
      }
    });
  });
  const closed = new Promise<number>((resolve) => {
    socket.on("close", () => {
      clearInterval(timer);
      resolve(Date.now() - started);
    });
    socket.on("error", () => undefined);
  });
  return { said: () => said, closed, greeting };
}

/** Settles with `fallback` after `ms` if `promise` has not settled by then: every wait here is bounded. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([promise, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms))]);
}

async function sendDsn(port: number, localAddress: string) {
  const raw = await readFile(new URL("./fixtures/rfc3464-simple.eml", import.meta.url));
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    ignoreTLS: true,
    localAddress,
  });
  try {
    return await transport.sendMail({ envelope: { from: "", to: VERP }, raw });
  } finally {
    transport.close();
  }
}

describe("inbound SMTP against slow clients", () => {
  it("closes a session that trickles bytes at its whole-session deadline, with 421", async () => {
    listener = await startInboundSmtp({ ingest: async () => undefined, sessionTimeoutMs: 1_500 });
    const slow = drip(listener.port);
    expect(await within(slow.greeting, 2_000, "no greeting")).toMatch(/^220/);
    const closedAfter = await within(slow.closed, 5_000, Number.POSITIVE_INFINITY);
    expect(closedAfter).toBeGreaterThanOrEqual(1_400);
    expect(closedAfter).toBeLessThan(4_000);
    expect(slow.said()).toContain("421 4.4.2");
  });

  it("refuses a client address past its share of connections; other senders still get in", async () => {
    const received: Buffer[] = [];
    listener = await startInboundSmtp({
      ingest: async (raw) => void received.push(raw),
      maxClients: 50,
      maxClientsPerAddress: 3,
    });
    const holders = [drip(listener.port), drip(listener.port), drip(listener.port)];
    for (const holder of holders) expect(await within(holder.greeting, 2_000, "no greeting")).toMatch(/^220/);
    const fourth = drip(listener.port);
    expect(await within(fourth.greeting, 2_000, "no greeting")).toMatch(/^421 4\.7\.0/);
    expect(await within(fourth.closed, 2_000, -1)).toBeGreaterThan(0);

    const info = await sendDsn(listener.port, "127.0.0.2");
    expect(info.accepted).toEqual([VERP]);
    expect(received).toHaveLength(1);

    // A slot the address gave back is its own again.
    sockets[0]!.destroy();
    await holders[0]!.closed;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server's close handler runs on the next turn
    expect(await within(drip(listener.port).greeting, 2_000, "no greeting")).toMatch(/^220/);
  });

  it("with the defaults, 50 dripping sessions from one address hold 10 slots, not all 50", async () => {
    listener = await startInboundSmtp({ ingest: async () => undefined });
    const drippers = Array.from({ length: 50 }, () => drip(listener!.port, "127.0.0.1", 1_000));
    const greetings = await Promise.all(drippers.map((d) => within(d.greeting, 5_000, "no greeting")));
    expect(greetings.filter((g) => g.startsWith("220"))).toHaveLength(10);
    expect(greetings.filter((g) => g.startsWith("421"))).toHaveLength(40);
    const info = await sendDsn(listener.port, "127.0.0.2");
    expect(info.accepted).toEqual([VERP]);
  });
});
