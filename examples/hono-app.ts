// A Hono app on Node (@hono/node-server) with flagpost's /v1 mounted as middleware.
// Run: npx tsx examples/hono-app.ts
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createFlagpost, memoryStorage } from "flagpost";
import { toHono } from "flagpost/http";

const fp = createFlagpost({ storage: memoryStorage() });
await fp.ready();
await fp.flags.create({
  key: "new-checkout",
  enabled: true,
  rules: [{ type: "attribute", attribute: "plan", operator: "equals", value: "pro" }],
});
const { key } = await fp.keys.create({ name: "example", scopes: ["full_access"] });

const app = new Hono();
app.use(toHono(fp)); // serves /v1/…; other paths fall through to the routes below
app.get("/checkout", async (c) => {
  const { enabled } = await fp.flags.evaluate("new-checkout", { attributes: { plan: c.req.query("plan") ?? "free" } });
  return c.json({ checkout: enabled ? "new" : "old" });
});

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: "127.0.0.1" }, (info) => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${info.port}`, key }));
});
process.once("SIGTERM", () => server.close(() => void fp.close()));
