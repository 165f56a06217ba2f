// A Fastify app with flagpost's /v1 under /api.
// Run: npx tsx examples/fastify-app.ts
import Fastify from "fastify";
import { createFlagpost, memoryStorage } from "flagpost";
import { toFastify } from "flagpost/http";

const fp = createFlagpost({ storage: memoryStorage() });
await fp.ready();
await fp.flags.create({ key: "new-checkout", enabled: true, rules: [{ type: "percentage", percentage: 50 }] });
const { key } = await fp.keys.create({ name: "example", scopes: ["full_access"] });

const app = Fastify();
await app.register(toFastify(fp), { prefix: "/api" }); // serves /api/v1/…

app.get<{ Querystring: { user?: string } }>("/checkout", async (request) => {
  const { enabled } = await fp.flags.evaluate("new-checkout", { userId: request.query.user || undefined });
  return { checkout: enabled ? "new" : "old" };
});

const url = await app.listen({ port: Number(process.env.PORT ?? 3000), host: "127.0.0.1" });
console.log(JSON.stringify({ url, api: `${url}/api`, key }));
process.once("SIGTERM", () => void app.close().then(() => fp.close()));
