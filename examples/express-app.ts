// An Express app that mounts flagpost's /v1 next to its own routes and asks a flag per request.
// Run: npx tsx examples/express-app.ts
import express from "express";
import { createFlagpost, memoryStorage } from "flagpost";
import { toExpress } from "flagpost/http";

const fp = createFlagpost({ storage: memoryStorage() });
await fp.ready();
await fp.flags.create({ key: "new-checkout", enabled: true, rules: [{ type: "users", userIds: ["alice"] }] });
const { key } = await fp.keys.create({ name: "example", scopes: ["full_access"] });

const app = express();
app.use(express.json()); // flagpost also works behind a body parser the app already runs
app.use(toExpress(fp)); // GET/POST /v1/flags, /v1/flags/:key/evaluate, … and /dashboard

app.get("/checkout", async (req, res) => {
  const { enabled } = await fp.flags.evaluate("new-checkout", { userId: String(req.query.user ?? "") || undefined });
  res.json({ checkout: enabled ? "new" : "old" });
});

const server = app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, key }));
});
process.once("SIGTERM", () => server.close(() => void fp.close()));
