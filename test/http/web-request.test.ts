import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { describe, expect, it } from "vitest";
import { fromWebRequest } from "../../adapters/http/web.js";

/**
 * fromWebRequest reads the headers of @hono/node-server's own Request from Node's IncomingMessage
 * (sparing a Headers object per request), and only when the Request is that very one: a Request
 * built anew by a middleware or a wrapper keeps its own headers.
 */
const init = { path: "/v1/flags", query: new URLSearchParams(), basePath: "" };

describe("fromWebRequest", () => {
  it("takes the headers of a Request built in code, whatever env.incoming holds", () => {
    const incoming = { headers: { authorization: "Bearer from-node" }, socket: { remoteAddress: "10.0.0.1" } };
    const request = new Request("http://x/v1/flags", { headers: { authorization: "Bearer from-request", "x-a": "1" } });
    const got = fromWebRequest(request, { ...init, env: { incoming } });
    expect(got.headers.authorization).toBe("Bearer from-request");
    expect(got.headers["x-a"]).toBe("1");
    expect(got.remoteAddress).toBe("10.0.0.1");
  });

  it("reads the headers of @hono/node-server's own Request from Node, and a rebuilt one from itself", async () => {
    const seen: Record<string, string | undefined>[] = [];
    let nodeHeaders: IncomingMessage["headers"] | undefined;
    const server = createAdaptorServer({
      fetch: (request: Request, env: unknown) => {
        nodeHeaders = (env as { incoming: IncomingMessage }).incoming.headers;
        seen.push(fromWebRequest(request, { ...init, env }).headers);
        const rebuilt = new Request(request.url, { headers: { authorization: "Bearer rebuilt" } });
        seen.push(fromWebRequest(rebuilt, { ...init, env }).headers);
        return new Response("ok");
      },
    }) as ReturnType<typeof createServer>;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const token of ["one", "two"]) {
        const response = await fetch(`http://127.0.0.1:${port}/v1/flags`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(await response.text()).toBe("ok");
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(seen.map((h) => h.authorization)).toEqual(["Bearer one", "Bearer rebuilt", "Bearer two", "Bearer rebuilt"]);
    // The node-server Request's headers are Node's own object, not a copy.
    expect(seen[2]).toBe(nodeHeaders);
  });
});
