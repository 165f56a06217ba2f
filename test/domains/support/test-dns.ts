import { Resolver } from "node:dns/promises";
import dns2 from "dns2";

/** A zone the test edits while the server runs: fully qualified name → TXT strings or MX. */
export interface TestZone {
  txt: Map<string, string[][]>;
  mx: Map<string, { exchange: string; priority: number }[]>;
}

/**
 * A real DNS server on 127.0.0.1 (UDP, random port) answering from `zone`, and a node:dns
 * Resolver pointed at it: verification goes through the same code path as against a real zone.
 */
export async function startTestDns(): Promise<{
  zone: TestZone;
  resolver: Resolver;
  address: string;
  close(): Promise<void>;
}> {
  const zone: TestZone = { txt: new Map(), mx: new Map() };
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      const name = question?.name.toLowerCase() ?? "";
      // dns2 encodes plain answer objects; its types ask for the Resource class.
      const answer = (fields: object) => response.answers.push(fields as (typeof response.answers)[number]);
      if (question?.type === Packet.TYPE.TXT) {
        for (const data of zone.txt.get(name) ?? [])
          answer({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data });
      } else if (question?.type === Packet.TYPE.MX) {
        for (const { exchange, priority } of zone.mx.get(name) ?? [])
          answer({ name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 1, exchange, priority });
      }
      void send(response);
    },
  });
  const listening = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = (listening.udp as { port: number }).port;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  const address = `127.0.0.1:${port}`;
  resolver.setServers([address]);
  return { zone, resolver, address, close: () => server.close() };
}
