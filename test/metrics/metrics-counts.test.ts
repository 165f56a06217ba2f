import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import nodemailer from "nodemailer";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { toNodeHandler } from "../../adapters/http/index.js";
import { nodemailerTransport } from "../../adapters/nodemailer/index.js";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { useStorage } from "../../adapters/testing/cases/use-storage.js";
import { kyselyHarness } from "../conformance/kysely-harness.js";
import { describeIfBackend } from "../support/databases.js";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.js";
import { parseExposition } from "./exposition.js";

/**
 * Issue 29 §2: after a known workload — N emails through a real SMTP server on 127.0.0.1 (one of
 * them refused with 550), M events over HTTP, K flag evaluations, B events left in the buffer, one
 * webhook endpoint whose deliveries wait (its worker does not run) — `GET /metrics` holds exactly
 * those counts, and Debian's `promtool check metrics` accepts the exposition.
 */

const run = promisify(execFile);
const N = 4; // sent; plus one more refused by every recipient (a hard bounce)
const M = 5;
const K = 7;
const B = 3; // events left in the buffer (its flush interval is far off)

for (const backend of ["sqlite", "postgres"] as const) {
  describeIfBackend(backend, `GET /metrics after a known workload (${backend})`, () => {
    const harness = kyselyHarness(backend);
    beforeAll(async () => harness.setup?.());
    afterAll(async () => harness.teardown?.());
    const storage: () => Storage = useStorage(harness);

    let sink: SmtpSink;
    let fp: Flagpost;
    let server: Server;
    let base: string;
    beforeEach(async () => {
      sink = await startSmtpSink();
      sink.onRecipient = (address) => (address.startsWith("gone") ? { code: 550, message: "No such user" } : undefined);
      const transporter = nodemailer.createTransport({
        host: "127.0.0.1",
        port: sink.port,
        secure: false,
        ignoreTLS: true,
      });
      fp = createFlagpost({
        storage: storage(),
        logger: silentLogger,
        transport: nodemailerTransport(transporter, { name: "smtp", closeTransporter: true }),
        emailWorker: { autoStart: false },
        metrics: { maxFlagKeys: 2 },
        events: { buffer: { flushIntervalMs: 3_600_000 } },
        webhooks: { autoStart: false, allowPrivateNetworks: true },
      });
      await fp.ready();
      server = createServer(toNodeHandler(fp, { rateLimit: false, dashboard: false }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve));
      await fp.close();
      await sink.close();
    });

    async function workload(): Promise<void> {
      await fp.webhooks.create({ endpoint: "http://127.0.0.1:9/hooks", events: ["email.sent"] });
      for (let i = 0; i < N; i++)
        await fp.emails.send({ from: "hello@example.com", to: `ann${i}@example.org`, subject: "Hi", text: "Hello" });
      await fp.emails.send({ from: "hello@example.com", to: "gone@example.org", subject: "Hi", text: "Hello" });
      while ((await fp.emails.worker!.runOnce()) > 0);
      const { key } = await fp.keys.create({ scopes: ["events:write"] });
      for (let i = 0; i < M; i++) {
        const response = await fetch(`${base}/v1/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ event: "signup", userId: `u${i}` }),
        });
        expect(response.status).toBeLessThan(300);
      }
      for (const flag of ["a", "b", "c"]) await fp.flags.create({ key: flag, enabled: true });
      for (let i = 0; i < K; i++) fp.isEnabled("a", { userId: `u${i}` });
      fp.isEnabled("b");
      fp.isEnabled("c"); // past maxFlagKeys (2): counted as __other__
      // Left in the outbox (the worker does not run again): two due now, one scheduled in an hour.
      const waiting = { from: "hello@example.com", to: "later@example.org", subject: "Hi", text: "Hello" };
      await fp.emails.send(waiting);
      await fp.emails.send(waiting);
      for (let i = 0; i < B; i++)
        expect(fp.events.enqueue({ event: "view", userId: `b${i}` })).toMatchObject({ queued: true });
      await fp.emails.send({ ...waiting, scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    }

    it("counts exactly what the workload did", async () => {
      await workload();
      expect(sink.received).toHaveLength(N);
      const { key } = await fp.keys.create({ scopes: ["metrics:read"] });
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parseExposition(await response.text());
      expect(samples.get('flagpost_email_events_total{event="sent"}')).toBe(N);
      expect(samples.get('flagpost_email_events_total{event="bounced"}')).toBe(1);
      expect(samples.get('flagpost_email_bounces_total{type="Permanent"}')).toBe(1);
      expect(samples.get("flagpost_events_accepted_total")).toBe(M);
      expect(samples.get('flagpost_flag_evaluations_total{flag="a"}')).toBe(K);
      expect(samples.get('flagpost_flag_evaluations_total{flag="b"}')).toBe(1);
      expect(samples.get('flagpost_flag_evaluations_total{flag="__other__"}')).toBe(1);
      expect(samples.has('flagpost_flag_evaluations_total{flag="c"}')).toBe(false);
      expect(samples.get('flagpost_outbox_emails{state="due"}')).toBe(2);
      expect(samples.get('flagpost_outbox_emails{state="scheduled"}')).toBe(1);
      expect(samples.get('flagpost_outbox_emails{state="held"}')).toBe(0);
      expect(samples.get("flagpost_webhook_deliveries_pending")).toBe(N); // one email.sent per sent email
      expect(samples.get("flagpost_events_buffered")).toBe(B);
      expect(samples.get("flagpost_outbox_oldest_due_age_seconds")).toBeGreaterThanOrEqual(0);
      expect(samples.get("flagpost_outbox_oldest_due_age_seconds")).toBeLessThan(60);
      const posts = [...samples].filter(([name]) =>
        name.startsWith('flagpost_http_requests_total{method="POST",route="/v1/events"'),
      );
      expect(posts.reduce((sum, [, value]) => sum + value, 0)).toBe(M);
      const counted = [...samples].filter(([name]) =>
        name.startsWith('flagpost_http_request_duration_seconds_count{method="POST",route="/v1/events"'),
      );
      expect(counted.reduce((sum, [, value]) => sum + value, 0)).toBe(M);
      const inBucket = (le: string) =>
        [...samples]
          .filter(
            ([name]) =>
              name.startsWith("flagpost_http_request_duration_seconds_bucket{") && name.includes(`le="${le}"`),
          )
          .filter(([name]) => name.includes('method="POST"') && name.includes('route="/v1/events"'))
          .reduce((sum, [, value]) => sum + value, 0);
      expect([inBucket("10"), inBucket("+Inf")]).toEqual([M, M]); // cumulative: every request is within 10 s

      expect([...samples.keys()].some((name) => name.includes("storage_errors") && !name.includes("{"))).toBe(false);
    });

    it("passes promtool check metrics", async () => {
      await workload();
      const { key } = await fp.keys.create({ scopes: ["full_access"] });
      const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${key}` } })).text();
      expect(text).toContain(
        "# TYPE flagpost_webhook_deliveries_pending gauge\nflagpost_webhook_deliveries_pending 4\n",
      );
      expect(text).toContain("# TYPE flagpost_events_buffered gauge\nflagpost_events_buffered 3\n");
      const child = execFile("promtool", ["check", "metrics"]);
      child.stdin!.end(text);
      const output = await new Promise<{ code: number | null; out: string }>((resolve) => {
        let out = "";
        child.stdout!.on("data", (chunk) => (out += String(chunk)));
        child.stderr!.on("data", (chunk) => (out += String(chunk)));
        child.on("close", (code) => resolve({ code, out }));
      });
      expect(output).toEqual({ code: 0, out: "" });
      expect((await run("promtool", ["--version"])).stdout).toMatch(/promtool/);
    });

    it("serves without a key when public (FLAGPOST_METRICS_PUBLIC=true), and reads the same counters as fp.metrics()", async () => {
      const open = createServer(toNodeHandler(fp, { metrics: { public: true }, dashboard: false }));
      await new Promise<void>((resolve) => open.listen(0, "127.0.0.1", resolve));
      try {
        await fp.events.track({ event: "signup", userId: "u1" });
        fp.isEnabled("missing-flag");
        const response = await fetch(`http://127.0.0.1:${(open.address() as AddressInfo).port}/metrics`);
        expect(response.status).toBe(200);
        const samples = parseExposition(await response.text());
        expect(samples.get("flagpost_events_accepted_total")).toBe(1);
        expect(fp.metrics()).toMatchObject({ eventsAccepted: 1, emailEvents: {}, suppressionsAdded: 0 });
      } finally {
        await new Promise((resolve) => open.close(resolve));
      }
    });

    it("refuses a key without metrics:read (403) and no key (401)", async () => {
      const { key } = await fp.keys.create({ scopes: ["flags:read"] });
      expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
    });
  });
}
