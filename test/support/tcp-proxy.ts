import { once } from "node:events";
import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 between flagpost and its database, for outage tests. It forwards
 * until told otherwise:
 * - `cut()`: closes every connection and stops listening (the database is gone: ECONNREFUSED);
 * - `blackHole()`: keeps every connection open and accepts new ones, but forwards nothing either
 *   way (a partition: nothing is refused, nothing answers);
 * - `restore()`: forwards again; after a black hole, what each side sent meanwhile goes through.
 *   `restore({ dropHeld: true })` forwards only new connections: the ones held by the black hole
 *   stay silent forever, never closed (a NAT or firewall that lost its state, a failover to a
 *   new host behind the same address), so only a timeout tells the client they are gone.
 */
export interface TcpProxy {
  readonly port: number;
  /** `url` (a database URL) with this proxy's host and port. */
  via(url: string): string;
  cut(): Promise<void>;
  blackHole(): void;
  restore(options?: { dropHeld?: boolean }): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
  /** Not forwarding (accepted or held during a black hole). */
  held: boolean;
  /** Held for good: a restore does not forward it. */
  dropped?: boolean;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let holding = false;
  let server: Server;

  const forward = (pair: Pair) => {
    if (!pair.held) return;
    pair.held = false;
    if (!pair.upstream) {
      const upstream = createConnection({ host: targetHost, port: targetPort });
      pair.upstream = upstream;
      upstream.on("error", () => pair.client.destroy());
      upstream.on("close", () => pair.client.destroy());
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
    pair.client.resume();
    pair.upstream.resume();
  };

  const hold = (pair: Pair) => {
    if (pair.held) return;
    pair.held = true;
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
  };

  const accept = (client: Socket) => {
    const pair: Pair = { client, held: true };
    pairs.add(pair);
    client.on("error", () => pair.upstream?.destroy());
    client.on("close", () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (holding) client.pause();
    else forward(pair);
  };

  const listen = async (port: number) => {
    server = createServer(accept);
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as { port: number }).port;
  };

  const port = await listen(0);
  const destroyAll = () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  };
  const stopListening = async () => {
    if (!server.listening) return;
    const closed = once(server, "close");
    server.close();
    await closed;
  };

  return {
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    async cut() {
      holding = false;
      const closing = stopListening();
      destroyAll();
      await closing;
    },
    blackHole() {
      holding = true;
      for (const pair of pairs) hold(pair);
    },
    async restore({ dropHeld = false } = {}) {
      holding = false;
      if (!server.listening) await listen(port);
      for (const pair of pairs) {
        if (dropHeld && pair.held) pair.dropped = true;
        if (!pair.dropped) forward(pair);
      }
    },
    async close() {
      const closing = stopListening();
      destroyAll();
      await closing;
    },
  };
}
